package scenarios

import (
	"strconv"
	"testing"
)

// A row's goroutine reads the names of ids it was sent while the stream's
// goroutine interns more (nginx-limit-req sizes a new key's state by its
// length): under -race the table must not race, and every name read is
// the one interned.
func TestKeyTableNameWhileInterning(t *testing.T) {
	k := NewKeyTable()
	ids := make(chan int32, 64)
	done := make(chan error)
	go func() {
		for id := range ids {
			if got, want := k.Name(id), "key-"+strconv.Itoa(int(id)); got != want {
				done <- &nameError{id, got, want}
				for range ids {
				}
				return
			}
			if k.Len() <= int(id) {
				done <- &nameError{id, "Len too small", ""}
				for range ids {
				}
				return
			}
		}
		done <- nil
	}()
	for i := 0; i < 20000; i++ {
		ids <- k.Intern("key-" + strconv.Itoa(i))
	}
	close(ids)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if k.Bytes() == 0 || k.Len() != 20000 {
		t.Errorf("Len %d, Bytes %d", k.Len(), k.Bytes())
	}
}

type nameError struct {
	id        int32
	got, want string
}

func (e *nameError) Error() string {
	return "id " + strconv.Itoa(int(e.id)) + ": " + e.got + ", want " + e.want
}
