package algorithms

// layeredKinds is the layered window's line in the registry (joined to
// kinds in registry.go).
var layeredKinds = []kind{
	{
		info: Info{Name: "hierarchical", Caps: CapKeyColumn | CapStage, Family: "windows",
			Summary:   "layered window: rings of buckets at several lengths, finest answering for the recent span, the old edge's bucket weighted by its share inside the window; pass iff estimate + 1 ≤ limit",
			Reference: "the definition (seed 002 §2.4's layered window, as docs/algorithms.md defines it)"},
		params: []param{pLimit, pWindow,
			p("layers", "W/10*10+W*2", "LEN*COUNT+... finest first, each length a multiple of the one before, the coarsest holding a window (for example 100ms*10+1s*2); the default is ten buckets of a tenth of the window and two of the window", kindString)},
		build: func(a *args) (Limiter, error) {
			var c HierarchicalConfig
			r := a.reader()
			c.Limit = r.float("limit")
			c.Window = r.duration("window")
			if err := r.err(); err != nil {
				return nil, err
			}
			if a.has("layers") {
				ls, err := ParseLayers(a.str("layers"))
				if err != nil {
					return nil, err
				}
				c.Layers = ls
			} else {
				c.Layers = DefaultLayers(c.Window)
			}
			return NewHierarchical(c)
		},
	},
}
