//go:build !unix

package lab

// freeBytes is not known on this system; the estimate is only printed.
func freeBytes(string) (uint64, bool) { return 0, false }
