package search

import (
	"context"
	"fmt"
	"os"
	"testing"
)

func TestScratchExplain(t *testing.T) {
	s := devSearcher(t)
	ctx := context.Background()
	for _, c := range []struct {
		q     []string
		tools []string
	}{
		{[]string{"提交本地改动"}, []string{"mcp__git__git_commit", "mcp__git__git_diff_staged"}},
		{[]string{"显示文件夹里的内容"}, []string{"mcp__filesystem__list_directory", "mcp__filesystem__read_multiple_files"}},
		{[]string{"帮我算一下 3 加 5 等于多少"}, []string{"mcp__everything__get-sum", "mcp__github__add_issue_comment"}},
	} {
		hits, _ := s.Search(ctx, c.q, 8, Scope{})
		for _, h := range hits {
			fmt.Printf("  %.3f %s\n", h.Score, h.Name)
		}
		for _, tool := range c.tools {
			e, err := s.Explain(ctx, c.q, tool, Scope{})
			if err != nil {
				t.Fatal(err)
			}
			_ = e.WriteText(os.Stdout)
		}
	}
}
