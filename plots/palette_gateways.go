package plots

import "image/color"

// gatewayPalette colours the gateway family (algorithms/gateway_*.go),
// merged into palette at init so the family keeps its colours in one file.
var gatewayPalette = map[string]color.RGBA{
	"envoy-local":  {R: 0xac, G: 0x00, B: 0x8f, A: 0xff}, // magenta
	"traefik":      {R: 0x24, G: 0xa1, B: 0xc1, A: 0xff}, // traefik cyan
	"haproxy":      {R: 0x10, G: 0x6d, B: 0xa9, A: 0xff}, // steel blue
	"kong":         {R: 0x00, G: 0x3e, B: 0x1c, A: 0xff}, // deep green
	"resilience4j": {R: 0xc9, G: 0x8a, B: 0x00, A: 0xff}, // amber
	"bucket4j":     {R: 0x6b, G: 0x4c, B: 0x9a, A: 0xff}, // violet
}

func init() {
	for name, c := range gatewayPalette {
		palette[name] = c
	}
}
