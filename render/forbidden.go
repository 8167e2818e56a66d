package render

import "slices"

// forbiddenFunction says what a forbidden template function would read.
func forbiddenFunction(name string) (what string, ok bool) {
	switch name {
	case "now", "date", "time", "today", "unix", "timestamp", "clock":
		return "the current time", true
	case "random", "rand", "randInt", "shuffle":
		return "a random value", true
	case "uuid", "uuidv4", "ulid":
		return "a fresh unique id", true
	case "read_file", "readFile", "file", "glob", "list_dir", "getwd":
		return "the file system", true
	case "exec", "shell", "run":
		return "the output of a command", true
	case "http_get", "http", "fetch":
		return "the network", true
	case "env", "getenv", "expandenv", "hostname":
		return "the process environment", true
	}
	return "", false
}

// forbiddenFunctions returns the names of the stub functions that fail a
// render, sorted.
func forbiddenFunctions() []string {
	names := []string{
		"now", "date", "time", "today", "unix", "timestamp", "clock",
		"random", "rand", "randInt", "shuffle",
		"uuid", "uuidv4", "ulid",
		"read_file", "readFile", "file", "glob", "list_dir", "getwd",
		"exec", "shell", "run",
		"http_get", "http", "fetch",
		"env", "getenv", "expandenv", "hostname",
	}
	slices.Sort(names)
	return names
}

// forbiddenVariable says why a variable name is forbidden.
func forbiddenVariable(name string) (what string, ok bool) {
	switch name {
	case "now", "time", "timestamp", "clock", "elapsed":
		return "a per-turn time value", true
	case "turn", "turn_id", "turn_index", "request_id", "message_id", "message_count", "token_count", "tokens_used":
		return "a per-turn counter or id", true
	case "random", "nonce", "seed", "uuid":
		return "a random value", true
	}
	return "", false
}

// forbiddenVariables returns the variable names that may never be declared
// or read, sorted: per-turn and random values.
func forbiddenVariables() []string {
	names := []string{
		"now", "time", "timestamp", "clock", "elapsed",
		"turn", "turn_id", "turn_index", "request_id", "message_id", "message_count", "token_count", "tokens_used",
		"random", "nonce", "seed", "uuid",
	}
	slices.Sort(names)
	return names
}
