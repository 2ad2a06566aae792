package scenarios_test

import (
	"fmt"

	"github.com/ratelimit-lab/ratelimit-lab/scenarios"
)

// Reading an access log: ScanLog checks the whole file and finds its time
// 0 (the earliest line); OpenLog then streams it, each arrival carrying
// the interned ids of its keys.
func ExampleOpenLog() {
	path := "examples/access.log"
	o := scenarios.LogOptions{Keys: []string{"ip"}, User: "user"}
	info, err := scenarios.ScanLog(path, path, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(info.Format, info.N, "arrivals over", info.End, "from", info.Origin.Format("2006-01-02 15:04:05Z07:00"), "whole seconds:", info.WholeSeconds)
	o.Origin = info.Origin
	st, err := scenarios.OpenLog(path, path, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	ks := st.(scenarios.KeyedStream)
	fmt.Println("key columns:", ks.KeyColumns())
	for i := 0; i < 3; i++ {
		a, _ := st.Next()
		fmt.Printf("%v key=%s user=%q\n", a.At, ks.KeyTable().Name(a.Keys[0]), ks.KeyTable().Name(a.User))
	}
	// Output:
	// combined 48 arrivals over 4s from 2024-12-01 11:00:00Z whole seconds: true
	// key columns: [key ip]
	// 0s key=203.0.113.7 user=""
	// 0s key=192.0.2.10 user=""
	// 0s key=198.51.100.23 user="bob"
}

// A phase's keys: a Zipf crowd of 1000 clients, drawn from the seed.
func ExampleParse_keys() {
	s, err := scenarios.Parse([]byte(`
limit: 10
duration: 1s
phases:
  - {type: constant, rate: 5, keys: {count: 1000, dist: zipf, s: 1.5}}
  - {type: constant, rate: 2, start: 0s, key: office, users: {count: 200}}
`), "crowd.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	st, _ := s.Stream()
	ks := st.(scenarios.KeyedStream)
	for {
		a, ok := st.Next()
		if !ok {
			break
		}
		fmt.Printf("%v %s user=%q\n", a.At, ks.KeyTable().Name(a.Keys[0]), ks.KeyTable().Name(a.User))
	}
	// Output:
	// 0s k000000 user=""
	// 0s office user="u000101"
	// 200ms k000429 user=""
	// 400ms k000000 user=""
	// 500ms office user="u000193"
	// 600ms k000175 user=""
	// 800ms k000008 user=""
}
