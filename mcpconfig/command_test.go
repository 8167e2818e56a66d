package mcpconfig_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolshelf/toolshelf/mcpconfig"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`npx -y @modelcontextprotocol/server-everything stdio`, []string{"npx", "-y", "@modelcontextprotocol/server-everything", "stdio"}},
		{"  node\tserver.js \n --port  3 ", []string{"node", "server.js", "--port", "3"}},
		{`node 'my dir/s.js'`, []string{"node", "my dir/s.js"}},
		{`node "my dir/s.js"`, []string{"node", "my dir/s.js"}},
		{`node my\ dir/s.js`, []string{"node", "my dir/s.js"}},
		{`a 'it'\''s'`, []string{"a", "it's"}},
		{`a "say \"hi\" \\ \$HOME \q"`, []string{"a", `say "hi" \ $HOME \q`}},
		{`a '\n stays' "x"y'z'`, []string{"a", `\n stays`, "xyz"}},
		{`a "" ''`, []string{"a", "", ""}},
		{"a \\\nb", []string{"a", "b"}},
		{`a "multi` + "\\\n" + `line"`, []string{"a", "multiline"}},
		{`a '|&;<>$~'`, []string{"a", "|&;<>$~"}},
		{`a \| \$x b~`, []string{"a", "|", "$x", "b~"}},
		{`sh -c 'cd /srv && exec node s.js'`, []string{"sh", "-c", "cd /srv && exec node s.js"}},
		{`a "ü ñ"`, []string{"a", "ü ñ"}},
		{`  node  "my server.js"  'a b' ""  `, []string{"node", "my server.js", "a b", ""}},
		{`x --flag="quoted value"`, []string{"x", "--flag=quoted value"}},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, err := mcpconfig.SplitCommand(tt.line)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSplitCommandErrors(t *testing.T) {
	tests := []struct{ line, want string }{
		{``, "empty command"},
		{"  \t ", "empty command"},
		{`node 's.js`, "unterminated ' quote"},
		{`node "s.js`, `unterminated " quote`},
		{`node s.js\`, "ends in a backslash"},
		{`cd /srv && node s.js`, "& is shell syntax"},
		{`node s.js | tee log`, "| is shell syntax"},
		{`node s.js > log`, "> is shell syntax"},
		{`node s.js; echo`, "; is shell syntax"},
		{`node $HOME/s.js`, "$ is shell syntax"},
		{"node `pwd`/s.js", "` is shell syntax"},
		{`node "$HOME/s.js"`, "$ inside double quotes"},
		{`node ~/s.js`, "~ is expanded by a shell"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, err := mcpconfig.SplitCommand(tt.line)
			require.Error(t, err)
			assert.Nil(t, got)
			assert.ErrorIs(t, err, mcpconfig.ErrCommand)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{`a 'b c' "d\"e" f\ g`, `"`, `\`, "a\\\n", `''""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args, err := mcpconfig.SplitCommand(line)
		if err != nil {
			assert.ErrorIs(t, err, mcpconfig.ErrCommand)
			return
		}
		require.NotEmpty(t, args)
		// Re-quoting every word in single quotes splits back to the same argv.
		requoted := ""
		for _, a := range args {
			requoted += " " + singleQuote(a)
		}
		again, err := mcpconfig.SplitCommand(requoted)
		require.NoError(t, err, "%q", requoted)
		assert.Equal(t, args, again)
	})
}

func singleQuote(s string) string {
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
		} else {
			out += string(r)
		}
	}
	return out + "'"
}

func ExampleSplitCommand() {
	argv, err := mcpconfig.SplitCommand(`node "/srv/my server/index.js" --name 'it'\''s mine' stdio`)
	fmt.Println(len(argv), err)
	for _, a := range argv {
		fmt.Println(a)
	}
	_, err = mcpconfig.SplitCommand(`cd /srv && node index.js`)
	fmt.Println(err)
	// Output:
	// 5 <nil>
	// node
	// /srv/my server/index.js
	// --name
	// it's mine
	// stdio
	// mcpconfig: bad command line: "cd /srv && node index.js": & is shell syntax and no shell is run: quote it to pass it literally, or run sh -c '...'
}

func ExampleGroupName() {
	fmt.Println(mcpconfig.GroupName("mcp-servers/everything"))
	fmt.Println(mcpconfig.GroupName("My Server (beta)"))
	// Output:
	// everything
	// My-Server-beta
}
