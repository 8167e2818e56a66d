// Command claudecal calibrates budget's Claude estimate: it counts every tool
// definition of the calibration catalogs (testdata/catalogs, the harness
// fixture, testdata/wild) with o200k_base and with the legacy Claude
// tokenizer (@anthropic-ai/tokenizer 0.0.4, installed from npm into a
// temporary directory and run by count.js), and writes the per-catalog sums
// to internal/engine/estimate/claudecal.json, which the budget package embeds. It
// is run by hand from the repository root; the library never runs npm:
//
//	go run ./internal/cmd/claudecal            # installs the tokenizer, writes the file
//	go run ./internal/cmd/claudecal -check     # fails if the file differs
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tiktoken-go/tokenizer"
	"github.com/toolshelf/toolshelf/registry"
)

// Tokenizer is the npm package the counts come from.
const Tokenizer = "@anthropic-ai/tokenizer@0.0.4"

// catalog is one calibration catalog's sums, as claudecal.json holds them.
type catalog struct {
	Name        string `json:"name"`
	Tools       int    `json:"tools"`
	ProseO200k  int    `json:"prose_o200k"`
	ProseClaude int    `json:"prose_claude"`
	JSONO200k   int    `json:"json_o200k"`
	JSONClaude  int    `json:"json_claude"`
}

type data struct {
	Tokenizer string    `json:"tokenizer"`
	Note      string    `json:"note"`
	Catalogs  []catalog `json:"catalogs"`
}

func main() {
	out := flag.String("out", "internal/engine/estimate/claudecal.json", "the data `FILE` to write")
	dir := flag.String("tokenizer-dir", "", "a `DIR` where "+Tokenizer+" is installed already (default: npm install into a temporary directory)")
	check := flag.Bool("check", false, "compare with -out instead of writing it")
	flag.Parse()
	if err := run(*out, *dir, *check); err != nil {
		fmt.Fprintln(os.Stderr, "claudecal:", err)
		os.Exit(1)
	}
}

func run(out, dir string, check bool) error {
	files, err := calibrationFiles()
	if err != nil {
		return err
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "claudecal"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cmd := exec.Command("npm", "install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, Tokenizer)
		cmd.Stderr = os.Stderr // its summary on stdout is dropped
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("npm install %s: %w", Tokenizer, err)
		}
	}
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return err
	}
	d := data{Tokenizer: Tokenizer, Note: "written by go run ./internal/cmd/claudecal; description as prose, registry.Tool.ModelSchema as JSON, per tool"}
	var texts [][]string // per catalog: description, schema, description, ...
	var all []string
	for _, f := range files {
		c, t, err := load(f)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		d.Catalogs, texts, all = append(d.Catalogs, c), append(texts, t), append(all, t...)
	}
	claude, err := claudeCounts(dir, all) // one node process: the vocabulary loads once
	if err != nil {
		return err
	}
	for i := range d.Catalogs {
		if err := tally(&d.Catalogs[i], texts[i], claude[:len(texts[i])], codec); err != nil {
			return fmt.Errorf("%s: %w", files[i], err)
		}
		claude = claude[len(texts[i]):]
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if check {
		old, err := os.ReadFile(out)
		if err != nil {
			return err
		}
		if !bytes.Equal(old, b) {
			return errors.New(out + " is stale: run go run ./internal/cmd/claudecal")
		}
		return nil
	}
	return os.WriteFile(out, b, 0o644)
}

// calibrationFiles lists the catalogs, sorted within each directory.
func calibrationFiles() ([]string, error) {
	var files []string
	for _, pattern := range []string{"testdata/catalogs/*.tools.json", "testdata/fixtures/harness-catalog.json", "testdata/wild/*.json"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			return nil, err
		}
		sort.Strings(m)
		for _, f := range m {
			if filepath.Base(f) != "servers.json" {
				files = append(files, f)
			}
		}
	}
	if len(files) == 0 {
		return nil, errors.New("no catalogs: run from the repository root")
	}
	return files, nil
}

// load reads one catalog's tools: each description (prose) and schema
// (compact JSON, as the model sees it), in that order.
func load(file string) (catalog, []string, error) {
	c, err := registry.LoadCatalog(file)
	if err != nil {
		return catalog{}, nil, err
	}
	name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".json"), ".tools")
	if c.Server == "" && c.Format == registry.FormatMCP {
		c.Server = strings.NewReplacer(".", "-", "_", "-").Replace(name)
	}
	reg := registry.New(nil)
	if c.Server != "" {
		if err := reg.AddGroup(registry.Group{Name: c.Server, Description: c.Description}); err != nil {
			return catalog{}, nil, err
		}
	}
	if err := reg.Import(c); err != nil && !errors.Is(err, registry.ErrRejected) { // measured without the tools left out, as before
		return catalog{}, nil, err
	}
	tools := reg.Snapshot().Tools()
	texts := make([]string, 0, 2*len(tools))
	for _, t := range tools {
		texts = append(texts, t.Description, string(t.ModelSchema()))
	}
	return catalog{Name: filepath.ToSlash(file), Tools: len(tools)}, texts, nil
}

// tally sums a catalog's counts by kind: o200k counted here, Claude's given.
func tally(r *catalog, texts []string, claude []int, codec tokenizer.Codec) error {
	for i, s := range texts {
		n, err := codec.Count(s)
		if err != nil {
			return err
		}
		if i%2 == 0 {
			r.ProseO200k += n
			r.ProseClaude += claude[i]
		} else {
			r.JSONO200k += n
			r.JSONClaude += claude[i]
		}
	}
	return nil
}

// claudeCounts runs count.js over texts with the tokenizer installed in dir.
func claudeCounts(dir string, texts []string) ([]int, error) {
	in, err := json.Marshal(texts)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("node", filepath.Join("internal", "cmd", "claudecal", "count.js"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(dir, "node_modules"))
	cmd.Stdin, cmd.Stderr = bytes.NewReader(in), os.Stderr
	outb, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node count.js: %w", err)
	}
	var counts []int
	if err := json.Unmarshal(outb, &counts); err != nil {
		return nil, err
	}
	if len(counts) != len(texts) {
		return nil, fmt.Errorf("node count.js: %d counts for %d texts", len(counts), len(texts))
	}
	return counts, nil
}
