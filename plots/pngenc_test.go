package plots

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"testing"
)

// TestEncodePNGLossless: encodePNG's file decodes to the very pixels it
// was given and to the pixels image/png's file of the same image decodes
// to, for opaque RGBA images (its own encoder: odd sizes, one row, one
// column, more than one IDAT chunk of noise, a chart) and for others
// (image/png at BestSpeed).
func TestEncodePNGLossless(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	noise := func(w, h int, opaque bool) *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			img.Pix[i] = uint8(rng.IntN(256))
			if i%4 == 3 && opaque {
				img.Pix[i] = 0xff
			}
		}
		return img
	}
	var chart bytes.Buffer
	if err := Chart(&chart, synthResult(), ChartOptions{}); err != nil {
		t.Fatal(err)
	}
	chartImg := decodePNG(t, chart.Bytes())
	gray := image.NewGray(image.Rect(0, 0, 7, 3))
	gray.SetGray(3, 1, color.Gray{Y: 0x80})
	for name, img := range map[string]image.Image{
		"1×1": noise(1, 1, true), "odd": noise(37, 11, true), "row": noise(300, 1, true), "column": noise(1, 300, true),
		"several IDAT chunks": noise(400, 300, true), "chart": chartImg,
		"translucent": noise(23, 9, false), "gray": gray,
		"offset": noise(40, 40, true).SubImage(image.Rect(3, 5, 31, 22)),
	} {
		var got, std bytes.Buffer
		if err := encodePNG(&got, img); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := png.Encode(&std, img); err != nil {
			t.Fatal(err)
		}
		a, err := png.Decode(&got)
		if err != nil {
			t.Fatalf("%s: not a PNG: %v", name, err)
		}
		b, _ := png.Decode(&std)
		if a.Bounds().Size() != img.Bounds().Size() {
			t.Fatalf("%s: %v, want %v", name, a.Bounds(), img.Bounds())
		}
		d := img.Bounds().Min
		for y := 0; y < a.Bounds().Dy(); y++ {
			for x := 0; x < a.Bounds().Dx(); x++ {
				ca, cb := color.NRGBAModel.Convert(a.At(x, y)), color.NRGBAModel.Convert(b.At(x, y))
				want := color.NRGBAModel.Convert(img.At(x+d.X, y+d.Y))
				if ca != want || cb != want {
					t.Fatalf("%s: pixel %d,%d decodes to %v (image/png's file: %v), want %v", name, x, y, ca, cb, want)
				}
			}
		}
	}
}
