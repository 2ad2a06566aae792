package plots

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"io"
)

// encodePNG writes img as a PNG. An opaque *image.RGBA (every chart: the
// canvas is filled white first) is written as 8-bit RGB with the Up
// filter on every row and the fastest deflate level; anything else goes
// through image/png at png.BestSpeed. The pixels are the same either way
// (PNG is lossless); what this leaves out is image/png's choice among five
// filters for each row, which was half of the encoding's time, and the
// default deflate level's search for longer matches, most of the rest: a
// chart of large areas of one colour does not need them. The files are
// about 1.1 to 1.2 times the size (docs/performance.md, "Drawing long
// runs").
func encodePNG(w io.Writer, img image.Image) error {
	rgba, ok := img.(*image.RGBA)
	if !ok || !rgba.Opaque() || rgba.Bounds().Empty() {
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		return enc.Encode(w, img)
	}
	b := rgba.Bounds()
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("\x89PNG\r\n\x1a\n")
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(b.Dx()))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(b.Dy()))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits a sample, truecolour; deflate, adaptive filtering, no interlace
	writeChunk(bw, "IHDR", ihdr[:])
	idat := &idatWriter{w: bw}
	zw, err := zlib.NewWriterLevel(idat, zlib.BestSpeed)
	if err != nil {
		return err
	}
	n := 3 * b.Dx()
	prev, cur, out := make([]byte, n), make([]byte, n), make([]byte, 1+n)
	out[0] = 2 // Up: each byte less the one above it (0 above the first row)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := rgba.Pix[rgba.PixOffset(b.Min.X, y):]
		for x, i := 0, 0; i < n; x, i = x+4, i+3 {
			cur[i], cur[i+1], cur[i+2] = row[x], row[x+1], row[x+2]
		}
		for i := range cur {
			out[1+i] = cur[i] - prev[i]
		}
		if _, err := zw.Write(out); err != nil {
			return err
		}
		prev, cur = cur, prev
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := idat.flush(); err != nil {
		return err
	}
	writeChunk(bw, "IEND", nil)
	return bw.Flush()
}

// idatWriter cuts the compressed stream into IDAT chunks of up to 64 KiB.
type idatWriter struct {
	w   *bufio.Writer
	buf []byte
	err error
}

func (d *idatWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), 1<<16-len(d.buf))
		d.buf = append(d.buf, p[:k]...)
		p = p[k:]
		if len(d.buf) == 1<<16 {
			if err := d.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, d.err
}

func (d *idatWriter) flush() error {
	if len(d.buf) > 0 && d.err == nil {
		d.err = writeChunk(d.w, "IDAT", d.buf)
		d.buf = d.buf[:0]
	}
	return d.err
}

// writeChunk writes a PNG chunk: length, type, data and the CRC of type
// and data.
func writeChunk(w *bufio.Writer, typ string, data []byte) error {
	var hdr [8]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(len(data)))
	copy(hdr[4:], typ)
	crc := crc32.NewIEEE()
	crc.Write(hdr[4:])
	crc.Write(data)
	w.Write(hdr[:])
	w.Write(data)
	binary.BigEndian.PutUint32(hdr[:4], crc.Sum32())
	_, err := w.Write(hdr[:4])
	return err
}
