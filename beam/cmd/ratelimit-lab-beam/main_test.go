package main

import (
	"flag"
	"testing"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow" // beamx links it too; named for the flags the test looks up
)

// TestFlagsBesideBeams registers the program's flags on the global flag
// set, which holds Beam's (this package imports the same runners and
// filesystems as the program): a name Beam uses would panic here. Beam's
// flags that docs/scale.md names must be there.
func TestFlagsBesideBeams(t *testing.T) {
	for _, name := range []string{"runner", "endpoint", "environment_type", "environment_config", "worker_binary",
		"project", "region", "staging_location", "temp_location", "job_name"} {
		if flag.Lookup(name) == nil {
			t.Errorf("Beam's --%s is not registered", name)
		}
	}
	c, level := flags(flag.CommandLine)
	if c.Shards != 16 || *level != "error" {
		t.Errorf("defaults: shards %d, log level %q", c.Shards, *level)
	}
	if err := flag.CommandLine.Parse([]string{"--trace", "t.csv", "--key", "ip,path", "--algo", "a", "--algo", "b", "--runner", "prism"}); err != nil {
		t.Fatal(err)
	}
	if c.Trace != "t.csv" || len(c.Keys) != 2 || len(c.Specs) != 2 {
		t.Errorf("parsed %+v", c)
	}
}
