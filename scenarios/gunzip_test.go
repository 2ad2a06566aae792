package scenarios

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

func gzipOf(t testing.TB, b []byte) []byte {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// readAllSized reads r to its error in reads of size bytes.
func readAllSized(r io.Reader, size int) ([]byte, error) {
	var out []byte
	p := make([]byte, size)
	for {
		n, err := r.Read(p)
		out = append(out, p[:n]...)
		if err != nil {
			return out, err
		}
		if n == 0 {
			return out, errors.New("a read of nothing without an error")
		}
	}
}

// sameAsGzip checks that asyncGunzip yields what gzip.Reader yields from
// the compressed bytes z: the same bytes, then the same error.
func sameAsGzip(t *testing.T, z []byte, size int) {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return // not even a header: openInput refuses it before any goroutine
	}
	want, wantErr := readAllSized(gz, size)
	gz2, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	a := newAsyncGunzip(gz2)
	got, gotErr := readAllSized(a, size)
	if err := a.Close(); err != nil && wantErr == io.EOF {
		t.Fatalf("close: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%d bytes, want %d (first difference checked by bytes.Equal)", len(got), len(want))
	}
	if gotErr != wantErr && (gotErr == nil || wantErr == nil || gotErr.Error() != wantErr.Error()) {
		t.Fatalf("error %v, want %v", gotErr, wantErr)
	}
}

// Across many chunks: the whole stream, a truncated one (gzip's unexpected
// EOF after every byte it could inflate) and one with a bad checksum, read
// in small and large reads.
func TestAsyncGunzipLikeGzip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	data := make([]byte, 5*gunzipChunk/2+123)
	for i := range data {
		data[i] = "abcdefgh\n"[rng.IntN(9)]
	}
	z := gzipOf(t, data)
	for _, size := range []int{1 << 10, 100_000, 1 << 20} {
		sameAsGzip(t, z, size)
		sameAsGzip(t, z[:len(z)/2], size)
		bad := bytes.Clone(z)
		bad[len(bad)-6] ^= 1 // the CRC-32
		sameAsGzip(t, bad, size)
	}
	// Two members, as concatenated .gz files are.
	sameAsGzip(t, append(gzipOf(t, data[:1000]), gzipOf(t, data[1000:])...), 4096)
}

// Closing before the end stops the goroutine (the race detector and the
// test's end would show one left running on the reader).
func TestAsyncGunzipCloseEarly(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789\n"), gunzipChunk)
	gz, err := gzip.NewReader(bytes.NewReader(gzipOf(t, data)))
	if err != nil {
		t.Fatal(err)
	}
	a := newAsyncGunzip(gz)
	p := make([]byte, 10)
	if n, err := io.ReadFull(a, p); n != 10 || err != nil || string(p) != "0123456789" {
		t.Fatalf("%q, %v", p[:n], err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.done:
	default:
		t.Fatal("the goroutine still runs after Close")
	}
	if err := a.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}

func FuzzAsyncGunzip(f *testing.F) {
	f.Add([]byte("t_ms\n1\n2\n"), 3, 0)
	f.Add(bytes.Repeat([]byte("x"), 70_000), 1000, 17)
	f.Fuzz(func(t *testing.T, data []byte, size, cut int) {
		if size < 1 || size > 1<<20 {
			size = 1 + (size&0xffff+0xffff)%0xffff
		}
		z := gzipOf(t, data)
		if cut > 0 && cut < len(z) {
			z = z[:len(z)-cut]
		}
		sameAsGzip(t, z, size)
	})
}
