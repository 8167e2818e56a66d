//go:build !linux

package scale

import "time"

// threadCPU is not available here: only wall times are reported.
func threadCPU() (time.Duration, bool) { return 0, false }
