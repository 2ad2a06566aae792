package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// addProfileFlags gives cmd --cpuprofile and --memprofile (issue 27), so a
// user can see where their own replay spends its time and memory with
// `go tool pprof`. It wraps cmd's RunE: the CPU profile covers the whole
// command (planning, reading, replaying, writing the files), and the heap
// profile is written when it ends, after a collection, as `go test
// -memprofile` writes it. Both are written whether the command succeeds or
// not; a file that cannot be created stops the command before it starts.
func addProfileFlags(cmd *cobra.Command) {
	var cpu, mem string
	f := cmd.Flags()
	f.StringVar(&cpu, "cpuprofile", "", "write a CPU profile of the command to FILE (read it with go tool pprof)")
	f.StringVar(&mem, "memprofile", "", "write a heap profile to FILE when the command ends (go tool pprof -sample_index=alloc_space for what it allocated)")
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) (err error) {
		var memFile *os.File
		if mem != "" {
			if memFile, err = os.Create(mem); err != nil {
				return fmt.Errorf("--memprofile %s: cannot create the file (%v); check the directory", mem, err)
			}
			defer func() {
				runtime.GC()
				werr := pprof.WriteHeapProfile(memFile)
				if cerr := memFile.Close(); werr == nil {
					werr = cerr
				}
				if werr != nil && err == nil {
					err = fmt.Errorf("--memprofile %s: cannot write the profile (%v); check the disk", mem, werr)
				}
			}()
		}
		if cpu != "" {
			cpuFile, err := os.Create(cpu)
			if err != nil {
				return fmt.Errorf("--cpuprofile %s: cannot create the file (%v); check the directory", cpu, err)
			}
			if err := pprof.StartCPUProfile(cpuFile); err != nil {
				cpuFile.Close()
				return fmt.Errorf("--cpuprofile %s: cannot start the profile (%v); run without it", cpu, err)
			}
			defer func() {
				pprof.StopCPUProfile()
				if cerr := cpuFile.Close(); cerr != nil && err == nil {
					err = fmt.Errorf("--cpuprofile %s: cannot write the profile (%v); check the disk", cpu, cerr)
				}
			}()
		}
		return run(c, args)
	}
}
