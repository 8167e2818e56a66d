package render

import (
	"maps"
	"slices"
)

// forbiddenFuncs maps each stub function that fails a render to what it
// would read.
var forbiddenFuncs = byName(map[string][]string{
	"the current time":        {"now", "date", "time", "today", "unix", "timestamp", "clock"},
	"a random value":          {"random", "rand", "randInt", "shuffle"},
	"a fresh unique id":       {"uuid", "uuidv4", "ulid"},
	"the file system":         {"read_file", "readFile", "file", "glob", "list_dir", "getwd"},
	"the output of a command": {"exec", "shell", "run"},
	"the network":             {"http_get", "http", "fetch"},
	"the process environment": {"env", "getenv", "expandenv", "hostname"},
})

// forbiddenVars maps each variable name that may never be declared or
// read to why: per-turn and random values.
var forbiddenVars = byName(map[string][]string{
	"a per-turn time value":    {"now", "time", "timestamp", "clock", "elapsed"},
	"a per-turn counter or id": {"turn", "turn_id", "turn_index", "request_id", "message_id", "message_count", "token_count", "tokens_used"},
	"a random value":           {"random", "nonce", "seed", "uuid"},
})

// byName turns names grouped by reason into a reason per name.
func byName(groups map[string][]string) map[string]string {
	out := map[string]string{}
	for what, names := range groups {
		for _, n := range names {
			out[n] = what
		}
	}
	return out
}

// forbiddenFunction says what a forbidden template function would read.
func forbiddenFunction(name string) (what string, ok bool) {
	what, ok = forbiddenFuncs[name]
	return what, ok
}

// forbiddenFunctions returns the names of the stub functions that fail a
// render, sorted.
func forbiddenFunctions() []string { return slices.Sorted(maps.Keys(forbiddenFuncs)) }

// forbiddenVariable says why a variable name is forbidden.
func forbiddenVariable(name string) (what string, ok bool) {
	what, ok = forbiddenVars[name]
	return what, ok
}

// forbiddenVariables returns the variable names that may never be declared
// or read, sorted: per-turn and random values.
func forbiddenVariables() []string { return slices.Sorted(maps.Keys(forbiddenVars)) }
