package goldenfile_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/internal/testkit/goldenfile"
)

// userUpdate is what a user's test package commonly defines. It is
// initialized after goldenfile's package initialization: were goldenfile
// to define -update at import, this line would panic with "flag redefined:
// update" and no test of this binary would run.
var userUpdate = flag.Bool("update", false, "the user's own golden flag")

// TestUserUpdateFlagCoexists runs in a binary that links goldenfile next to
// a package-level -update flag of its own, and checks that the flag is the
// user's and that goldenfile does not read it.
func TestUserUpdateFlagCoexists(t *testing.T) {
	f := flag.Lookup("update")
	require.NotNil(t, f)
	assert.Equal(t, "the user's own golden flag", f.Usage)
	require.NoError(t, f.Value.Set("true"))
	defer f.Value.Set("false")
	assert.True(t, *userUpdate)
	t.Setenv(goldenfile.UpdateEnv, "")
	assert.False(t, goldenfile.Updating(), "the user's -update is not goldenfile's switch")

	path := filepath.Join(t.TempDir(), "body.golden")
	require.NoError(t, os.WriteFile(path, []byte(`{"a":1}`), 0o644))
	assert.True(t, goldenfile.Golden(t, path, []byte(`{"a":1}`)))
}

// TestGoldenUpdateEnv checks the one golden-file convention: with
// TOOLSHELF_UPDATE=1 Golden writes the file (creating its directory), and
// without it compares with what was written.
func TestGoldenUpdateEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "turn.golden")
	t.Setenv(goldenfile.UpdateEnv, "1")
	require.True(t, goldenfile.Updating())
	assert.True(t, goldenfile.Golden(t, path, []byte(`{"model":"m"}`)))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, `{"model":"m"}`, string(got))

	t.Setenv(goldenfile.UpdateEnv, "0")
	require.False(t, goldenfile.Updating(), "only 1 rewrites")
	assert.True(t, goldenfile.Golden(t, path, []byte(`{"model":"m"}`)))
}
