package algorithms

import "time"

// nominaler is a limiter whose own limit is a count per window of its
// own length, which spreading its rate over a second would misstate: the
// per-key wrapper reports it as the key's nominal limit (KeyNominal), so
// that "over" and innocent_keys_hurt measure a key against the limit the
// product applies (Kong's minute=100 is 100 per minute, not 1.67 per
// second, which would make a key with 2 requests in a second over).
type nominaler interface {
	nominal() (limit float64, window time.Duration)
}

// nominal implements nominaler: the strictest configured unit (the one
// Rate spreads), its limit per its length (a month as 30 days, a year as
// 365, as kong/plugins/rate-limiting/expiration.lua).
func (k *Kong) nominal() (float64, time.Duration) {
	best, lim, win := 0.0, 0.0, time.Duration(0)
	for i, u := range k.cfg.units {
		r := k.cfg.Limits[u] / float64(kongExpiration[u])
		if i == 0 || r < best {
			best, lim, win = r, k.cfg.Limits[u], time.Duration(kongExpiration[u])*time.Second
		}
	}
	return lim, win
}

// nominal implements nominaler: `deny if { sc_http_req_rate(0) gt
// limit }` over http_req_rate(period).
func (h *HAProxy) nominal() (float64, time.Duration) {
	return float64(h.cfg.Limit), h.cfg.Period
}

// nominal implements nominaler: limitForPeriod per limitRefreshPeriod.
func (r *Resilience4j) nominal() (float64, time.Duration) {
	return float64(r.cfg.LimitForPeriod), r.cfg.RefreshPeriod
}

// nominal implements nominaler: limit per window.
func (f *FixedWindow) nominal() (float64, time.Duration) { return f.cfg.Limit, f.cfg.Window }

// nominal implements nominaler: limit per window.
func (s *SlidingLog) nominal() (float64, time.Duration) { return s.cfg.Limit, s.cfg.Window }

// nominal implements nominaler: limit per window.
func (s *SlidingWindowCounter) nominal() (float64, time.Duration) {
	return s.cfg.Limit, s.cfg.Window
}
