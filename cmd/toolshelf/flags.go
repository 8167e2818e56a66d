package main

import (
	"flag"
	"io"
	"os"
	"strings"
)

// files is a repeatable flag that also takes the files that follow it:
// --catalog a.json b.json and --catalog a.json --catalog b.json are the same.
type files []string

func (f *files) String() string     { return strings.Join(*f, ",") }
func (f *files) Set(v string) error { *f = append(*f, v); return nil }

// parse parses flags and positional arguments in any order (the flag
// package stops at the first positional one), returning the positionals.
// The arguments that follow a [files] flag's value and name existing files
// are that flag's too, so `--catalog A B QUERY` reads two catalogs and one
// query word.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	args = takeFiles(fs, args)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// takeFiles rewrites the existing files that follow a [files] flag's value
// as more of that flag (--catalog=FILE), so the flag package, which stops
// at the first positional argument, sees them as the flag's.
func takeFiles(fs *flag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		name, inline := flagName(a)
		if name == "" {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if _, ok := f.Value.(*files); !ok {
			continue
		}
		if !inline { // the flag's own value is the next argument
			if i+1 >= len(args) {
				break
			}
			i++
			out = append(out, args[i])
		}
		for i+1 < len(args) && isFile(args[i+1]) {
			i++
			out = append(out, "--"+name+"="+args[i])
		}
	}
	return out
}

// flagName is the name of the flag a is (-x, --x, --x=v), with whether it
// carries its value inline; "" when a is no flag.
func flagName(a string) (string, bool) {
	if len(a) < 2 || a[0] != '-' || a == "--" {
		return "", false
	}
	a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
	if name, _, ok := strings.Cut(a, "="); ok {
		return name, true
	}
	return a, false
}

// isFile reports whether a names an existing regular file and is not a flag.
func isFile(a string) bool {
	if a == "" || a[0] == '-' {
		return false
	}
	st, err := os.Stat(a)
	return err == nil && st.Mode().IsRegular()
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
