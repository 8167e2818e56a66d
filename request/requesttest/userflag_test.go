package requesttest_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/request/requesttest"
)

// userUpdate is what a user's test package commonly defines. It is
// initialized after requesttest's package initialization: were requesttest
// to define -update at import, this line would panic with "flag redefined:
// update" and no test of this binary would run.
var userUpdate = flag.Bool("update", false, "the user's own golden flag")

// TestUserUpdateFlagCoexists runs in a binary that links requesttest next to
// a package-level -update flag of its own, and checks that the flag is the
// user's and that requesttest does not read it.
func TestUserUpdateFlagCoexists(t *testing.T) {
	f := flag.Lookup("update")
	require.NotNil(t, f)
	assert.Equal(t, "the user's own golden flag", f.Usage)
	require.NoError(t, f.Value.Set("true"))
	defer f.Value.Set("false")
	assert.True(t, *userUpdate)
	t.Setenv(requesttest.UpdateEnv, "")
	assert.False(t, requesttest.Updating(), "the user's -update is not requesttest's switch")

	path := filepath.Join(t.TempDir(), "body.golden")
	require.NoError(t, os.WriteFile(path, []byte(`{"a":1}`), 0o644))
	assert.True(t, requesttest.Golden(t, path, []byte(`{"a":1}`)))
}

// TestGoldenUpdateEnv checks the one golden-file convention: with
// TOOLSHELF_UPDATE=1 Golden writes the file (creating its directory), and
// without it compares with what was written.
func TestGoldenUpdateEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "turn.golden")
	t.Setenv(requesttest.UpdateEnv, "1")
	require.True(t, requesttest.Updating())
	assert.True(t, requesttest.Golden(t, path, []byte(`{"model":"m"}`)))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, `{"model":"m"}`, string(got))

	t.Setenv(requesttest.UpdateEnv, "0")
	require.False(t, requesttest.Updating(), "only 1 rewrites")
	assert.True(t, requesttest.Golden(t, path, []byte(`{"model":"m"}`)))
}
