// Package build writes the extension table of package filekind from two
// public sources: a mime.types file (Debian's media-types package, public
// domain) and GitHub Linguist's language list as the npm package
// linguist-languages publishes it (MIT). It is a build-time tool.
package build

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// gTLDs are the seven generic top-level domains of RFC 1591: a word
// ending in one of them names a host far more often than a file
// ("wikipedia.org", "example.com"), so they are left out of the table
// even where a source lists them (mime.types has .com for MS-DOS
// programs, Linguist .org for Org mode).
var gTLDs = []string{"com", "edu", "gov", "int", "mil", "net", "org"}

// mediaKinds are the top-level media types whose name says what a file
// holds in words tool catalogs use.
var mediaKinds = []string{"audio", "font", "image", "model", "text", "video"}

// Build returns the table text: a header naming the sources and their
// SHA-256, then one line per extension, "ext<TAB>kind", sorted, where kind
// is a media kind of [mediaKinds] or "file" for an extension whose files
// the sources describe in no such word (application/pdf).
func Build(mimeTypes, linguistDir string) ([]byte, error) {
	mt, err := os.ReadFile(mimeTypes)
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	lingJSON, err := linguist(linguistDir)
	if err != nil {
		return nil, err
	}
	var ling map[string]struct {
		Type       string   `json:"type"`
		Extensions []string `json:"extensions"`
	}
	if err := json.Unmarshal(lingJSON, &ling); err != nil {
		return nil, fmt.Errorf("build: linguist JSON: %w", err)
	}
	kind := map[string]string{}
	// Linguist's languages are all text files: source, data, markup and
	// prose.
	for _, l := range ling {
		for _, e := range l.Extensions {
			if e, ok := extension(strings.TrimPrefix(e, ".")); ok {
				kind[e] = "text"
			}
		}
	}
	// mime.types decides where it names a media kind; an application type
	// leaves Linguist's "text" in place, or says "file".
	sc := bufio.NewScanner(bytes.NewReader(mt))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		top, _, _ := strings.Cut(strings.ToLower(f[0]), "/")
		for _, e := range f[1:] {
			e, ok := extension(e)
			if !ok {
				continue
			}
			switch {
			case slices.Contains(mediaKinds, top):
				kind[e] = top
			case kind[e] == "":
				kind[e] = "file"
			}
		}
	}
	for _, g := range gTLDs {
		delete(kind, g)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# File name extensions and what their files hold, written by internal/engine/filekind/internal/gen. DO NOT EDIT.\n")
	fmt.Fprintf(&b, "# Sources: %s (media types; public domain), GitHub Linguist's languages from npm linguist-languages %s (MIT).\n", "mime.types", lingVersion(linguistDir))
	fmt.Fprintf(&b, "# sha256 mime.types %x\n", sha256.Sum256(mt))
	fmt.Fprintf(&b, "# sha256 linguist %x\n", sha256.Sum256(lingJSON))
	for _, e := range slices.Sorted(maps.Keys(kind)) {
		fmt.Fprintf(&b, "%s\t%s\n", e, kind[e])
	}
	return b.Bytes(), nil
}

// extension returns e lower-cased when it is one plain extension: 1–8
// ASCII letters and digits, at least one a letter ("tar.gz", "sarif.json"
// and "7z"-less oddities with symbols are left out).
func extension(e string) (string, bool) {
	e = strings.ToLower(e)
	if e == "" || len(e) > 8 {
		return "", false
	}
	letter := false
	for i := 0; i < len(e); i++ {
		c := e[i]
		switch {
		case c >= 'a' && c <= 'z':
			letter = true
		case c >= '0' && c <= '9':
		default:
			return "", false
		}
	}
	return e, letter
}

// linguist prints the package's language table as JSON, sorted by name,
// with node (the package is an ES module of one file per language).
func linguist(dir string) ([]byte, error) {
	abs, err := filepath.Abs(filepath.Join(dir, "index.js"))
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	script := `import(process.argv[1]).then(m => { const o = {}; for (const k of Object.keys(m).sort()) { const l = m[k]; if (l && l.type) o[k] = {type: l.type, extensions: l.extensions || []}; } process.stdout.write(JSON.stringify(o)); })`
	out, err := exec.Command("node", "-e", script, abs).Output()
	if err != nil {
		return nil, fmt.Errorf("build: reading Linguist's languages with node from %s: %w", dir, err)
	}
	return out, nil
}

func lingVersion(dir string) string {
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "?"
	}
	var p struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(raw, &p) != nil || p.Version == "" {
		return "?"
	}
	return p.Version
}
