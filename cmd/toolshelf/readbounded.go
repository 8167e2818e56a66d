package main

import (
	"fmt"
	"io"
	"os"
)

// readBounded reads the file at path, refusing one over max bytes before
// reading it (by its size) and reading no more than max+1 bytes whatever it
// is (a pipe, a device, a file still growing).
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > max {
		return nil, fmt.Errorf("%d bytes; the limit is %d", st.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("over %d bytes; the limit is %d", max, max)
	}
	return data, nil
}
