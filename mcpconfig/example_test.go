package mcpconfig_test

import (
	"fmt"

	"github.com/toolshelf/toolshelf/mcpconfig"
)

func ExampleParse() {
	file := `{"mcpServers": {
	  "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "${TOKEN}"}},
	  "web": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${KEY:-none}"}}
	}}`
	getenv := func(name string) (string, bool) {
		if name == "TOKEN" {
			return "t0k", true
		}
		return "", false
	}
	servers, err := mcpconfig.Parse([]byte(file), &mcpconfig.Options{Getenv: getenv})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range servers {
		fmt.Println(s.Name, s.Command, s.Env, s.URL, s.Headers)
	}
	_, err = mcpconfig.Parse([]byte(`{"mcpServers": {"a": {"command": "true", "Command": "sh"}}}`), nil)
	fmt.Println(err)
	// Output:
	// github [npx -y @modelcontextprotocol/server-github] [GITHUB_TOKEN=t0k]  map[]
	// web [] [] https://mcp.example.com/mcp map[Authorization:[Bearer none]]
	// mcpconfig: invalid mcpServers file: keys "command" and "Command" differ only in case in one object (at /mcpServers/a): at line 1 column 23 and at line 1 column 42; JSON readers disagree on which one counts, so keep one, spelled as documented
}
