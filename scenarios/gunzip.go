package scenarios

import (
	"compress/gzip"
	"io"
)

// gunzipChunk is the size of a decompressed chunk, and gunzipChunks how
// many are in flight between the decompressing goroutine and the reader.
const (
	gunzipChunk  = logBuffer
	gunzipChunks = 4
)

// asyncGunzip decompresses a gzip stream on a goroutine of its own, so that
// inflating a gzipped trace runs beside parsing it (and the replay) instead
// of in turn with them. The goroutine fills chunks of gunzipChunk bytes
// from a fixed pool and hands them over in order; Read serves their bytes,
// then the decompressor's error (io.EOF at the end of the stream, or what
// gzip.Reader says of a truncated or corrupt one) once every byte before
// it has been read: the same bytes and the same error as reading the
// gzip.Reader directly.
type asyncGunzip struct {
	gz   *gzip.Reader
	full chan gunzipPiece // decompressed chunks, in order, then the error
	free chan []byte      // chunks read through, back to the goroutine
	stop chan struct{}    // closed by Close
	done chan struct{}    // closed when the goroutine has returned

	cur []byte // the unread rest of the chunk being read
	own []byte // that chunk's buffer, to give back once read
	err error  // the decompressor's error, once received
}

// gunzipPiece is a chunk of bytes, or the error that ends the stream.
type gunzipPiece struct {
	b   []byte
	err error
}

func newAsyncGunzip(gz *gzip.Reader) *asyncGunzip {
	r := &asyncGunzip{gz: gz, full: make(chan gunzipPiece, gunzipChunks+1), free: make(chan []byte, gunzipChunks),
		stop: make(chan struct{}), done: make(chan struct{})}
	for range gunzipChunks {
		r.free <- make([]byte, gunzipChunk)
	}
	go r.inflate()
	return r
}

// inflate is the decompressing goroutine.
func (r *asyncGunzip) inflate() {
	defer close(r.done)
	for {
		var buf []byte
		select {
		case buf = <-r.free:
		case <-r.stop:
			return
		}
		n := 0
		var err error
		for n < len(buf) && err == nil {
			var k int
			k, err = r.gz.Read(buf[n:])
			n += k
		}
		if n > 0 {
			// Never blocks: full holds every chunk of the pool and the error.
			r.full <- gunzipPiece{b: buf[:n]}
		}
		if err != nil {
			r.full <- gunzipPiece{err: err}
			return
		}
	}
}

func (r *asyncGunzip) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.own != nil {
			r.free <- r.own // never blocks: free holds the whole pool
			r.own = nil
		}
		if r.err != nil {
			return 0, r.err
		}
		piece := <-r.full
		if piece.err != nil {
			r.err = piece.err
			continue
		}
		r.cur, r.own = piece.b, piece.b
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// Close stops the goroutine, waits for it, and closes the gzip reader (not
// the file under it).
func (r *asyncGunzip) Close() error {
	select {
	case <-r.stop:
		return nil // closed before
	default:
	}
	close(r.stop)
	<-r.done
	return r.gz.Close()
}

var _ io.ReadCloser = (*asyncGunzip)(nil)
