package plots

import "image/color"

// palette gives every registry name one fixed colour, the same in every
// chart, so a limiter is recognisable across runs.
var palette = map[string]color.RGBA{
	"fixed-window":         {R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // red
	"leap-array":           {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, // blue
	"sliding-log":          {R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, // green
	"token-bucket":         {R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, // orange
	"leaky-bucket":         {R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, // purple
	"warm-up":              {R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}, // brown
	"warm-up-rate-limiter": {R: 0x17, G: 0xa2, B: 0xb8, A: 0xff}, // teal
	"circuit-breaker":      {R: 0x3b, G: 0x3b, B: 0x98, A: 0xff}, // indigo
	// The other references and the seed's ring.
	"sliding-window-counter": {R: 0xbc, G: 0xbd, B: 0x22, A: 0xff}, // olive
	"seed-ring":              {R: 0xe3, G: 0x77, B: 0xc2, A: 0xff}, // orchid
	"decaying-window":        {R: 0x55, G: 0x6b, B: 0x2f, A: 0xff}, // dark olive green
	"hierarchical":           {R: 0x48, G: 0x3d, B: 0x8b, A: 0xff}, // dark slate blue
	"uber":                   {R: 0xb8, G: 0x86, B: 0x0b, A: 0xff}, // dark goldenrod
	"guava-bursty":           {R: 0x80, G: 0x00, B: 0x40, A: 0xff}, // maroon
	"guava-warming-up":       {R: 0x99, G: 0x34, B: 0x04, A: 0xff}, // rust
	// The redis-* limiters (one shared server).
	"redis-sliding-log":     {R: 0x1b, G: 0x5e, B: 0x20, A: 0xff}, // forest green
	"redis-fixed-window":    {R: 0x8b, G: 0x1a, B: 0x1a, A: 0xff}, // dark red
	"redis-bucketed":        {R: 0x00, G: 0x8b, B: 0x8b, A: 0xff}, // dark cyan
	"redis-gcra":            {R: 0xe6, G: 0x55, B: 0x0d, A: 0xff}, // burnt orange
	"redis-spring-gateway":  {R: 0x6d, G: 0xb3, B: 0x3f, A: 0xff}, // spring green
	"redis-envoy-ratelimit": {R: 0x7a, G: 0x1f, B: 0x5c, A: 0xff}, // plum
	"redis-cell":            {R: 0x9e, G: 0x6b, B: 0x3a, A: 0xff}, // clay
	"redis-script":          {R: 0x00, G: 0x00, B: 0x80, A: 0xff}, // navy
	// The per-key limiters.
	"nginx-limit-req": {R: 0x00, G: 0x96, B: 0x39, A: 0xff}, // nginx green
	"sentinel-param":  {R: 0xc7, G: 0x15, B: 0x85, A: 0xff}, // medium violet red
	// The adaptive limiters (issue 16).
	"concurrency":     {R: 0x00, G: 0x64, B: 0x00, A: 0xff}, // dark green
	"sentinel-system": {R: 0x4b, G: 0x00, B: 0x82, A: 0xff}, // indigo violet
	"aegis-bbr":       {R: 0xcd, G: 0x5c, B: 0x5c, A: 0xff}, // indian red
	"aimd":            {R: 0x46, G: 0x82, B: 0xb4, A: 0xff}, // steel blue
	"vegas":           {R: 0xda, G: 0xa5, B: 0x20, A: 0xff}, // goldenrod
	"gradient2":       {R: 0x20, G: 0xb2, B: 0xaa, A: 0xff}, // light sea green
	"envoy-adaptive":  {R: 0xff, G: 0x45, B: 0x00, A: 0xff}, // medium violet red
	"none":            {R: 0x69, G: 0x69, B: 0x69, A: 0xff}, // dim grey
	// Sentinel's cluster flow control (issue 28).
	"sentinel-cluster": {R: 0x8b, G: 0x45, B: 0x13, A: 0xff}, // saddle brown
}

// unknownColor is used for names missing from the palette.
var unknownColor = color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff}

// Fixed colours of the parts shared by every panel.
var (
	arrivalFill = color.RGBA{R: 0xdc, G: 0xdc, B: 0xdc, A: 0xff}
	arrivalEdge = color.RGBA{R: 0xb4, G: 0xb4, B: 0xb4, A: 0xff}
	arrivalBand = color.RGBA{R: 0xee, G: 0xee, B: 0xee, A: 0xff} // up to a column's busiest bin
	limitColor  = color.RGBA{R: 0x20, G: 0x20, B: 0x20, A: 0xff}
	waitColor   = color.RGBA{R: 0xc5, G: 0x1b, B: 0x8a, A: 0xff} // deep pink
	gridColor   = color.RGBA{R: 0xe8, G: 0xe8, B: 0xe8, A: 0xff}
)

// BaseColor returns the fixed colour of a registry name.
func BaseColor(name string) color.RGBA {
	if c, ok := palette[name]; ok {
		return c
	}
	return unknownColor
}

// ShadeColor returns the colour of the i-th (0-based) of n limiters sharing
// one registry name: the first gets the base colour, the others alternate
// darker and lighter shades so that several leap-arrays stay apart.
func ShadeColor(name string, i, n int) color.RGBA {
	base := BaseColor(name)
	if n <= 1 || i <= 0 {
		return base
	}
	// Steps: 1 → darker, 2 → lighter, 3 → darker still, ...
	step := (i + 1) / 2
	amount := 0.22 * float64(step)
	amount = min(amount, 0.7)
	if i%2 == 1 {
		return mix(base, color.RGBA{A: 0xff}, amount)
	}
	return mix(base, color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}, amount)
}

// mix moves c towards to by t in [0, 1].
func mix(c, to color.RGBA, t float64) color.RGBA {
	f := func(a, b uint8) uint8 { return uint8(float64(a) + (float64(b)-float64(a))*t + 0.5) }
	return color.RGBA{R: f(c.R, to.R), G: f(c.G, to.G), B: f(c.B, to.B), A: 0xff}
}

// algoColors gives each limiter of a run its colour, shading duplicates of
// the same name.
func algoColors(names []string) []color.RGBA {
	total := map[string]int{}
	for _, n := range names {
		total[n]++
	}
	seen := map[string]int{}
	out := make([]color.RGBA, len(names))
	for i, n := range names {
		out[i] = ShadeColor(n, seen[n], total[n])
		seen[n]++
	}
	return out
}
