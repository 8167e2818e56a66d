package storetest_test

import (
	"testing"

	"github.com/toolshelf/toolshelf/request"
	"github.com/toolshelf/toolshelf/request/storetest"
)

// TestMemoryStore runs the contract on the in-memory reference.
func TestMemoryStore(t *testing.T) {
	storetest.TestStore(t, func(*testing.T) request.Store { return &storetest.MemoryStore{} })
}
