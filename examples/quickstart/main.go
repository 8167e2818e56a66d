// Command quickstart shows toolshelf's deferral plan on a small harness.
package main

import (
	"fmt"
	"log"

	deferral "github.com/toolshelf/toolshelf/defer"
	"github.com/toolshelf/toolshelf/registry"
)

func main() {
	reg := registry.New(nil)
	must(reg.Register(
		registry.Tool{Name: "Read", Description: "Read a file.", DeferLoading: registry.DeferFalse},
		registry.Tool{Name: "Write", Description: "Write a file."},
		registry.Tool{Name: "VideoGen", Description: "Generate a video.", DeferLoading: registry.DeferTrue},
	))
	policy := &deferral.Policy{Default: deferral.DefaultResident}
	plan, err := policy.Plan(reg.Snapshot(), deferral.View{})
	must(err)
	for _, d := range plan.Decisions() {
		fmt.Println(d)
	}
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
