package request

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolshelf/toolshelf/internal/engine/wire"
)

// This file applies the providers' rule book ([wire.Rules], kept in
// internal/engine/wire with the checker): for each rule the session either makes
// the body conform by a deterministic transformation, decided once when
// the prefix is frozen or when a message is encoded, or refuses at
// NewSession/BuildRequest with an error naming the field and the fix.
// docs/providers.md has the table.

// maxDescription is the longest tool description OpenAI Chat Completions
// and Responses accept, in characters. Longer descriptions are shortened
// in tools[], cut at a sentence with a note saying so; tool_search's name index never rides
// in a description there, but in the system instructions.
const maxDescription = wire.MaxDescription

// Placeholder texts sent in place of text a provider refuses as empty.
const (
	// emptyErrorResult replaces an empty or whitespace-only failed tool
	// result: Anthropic refuses an is_error tool_result without content,
	// and the OpenAI APIs would show the model a bare "Error: ".
	emptyErrorResult = "The tool failed without an error message."
	// emptyText replaces whitespace-only assistant text that is all its
	// message has: Anthropic refuses whitespace-only text blocks. Next to
	// tool calls such text is left out instead.
	emptyText = "(no text)"
)

// capsDescriptions reports whether p limits a tool description to
// wire.MaxDescription characters.
func capsDescriptions(p Provider) bool {
	enc, ok := encoderFor(p)
	return ok && enc.traits().capsDescriptions
}

// checkProviderRules refuses configurations the provider would refuse on
// every request.
func checkProviderRules(cfg *Config) error {
	if enc, ok := encoderFor(cfg.Provider); ok {
		if err := enc.checkRules(cfg); err != nil {
			return err
		}
	}
	if vs := wire.TokenFields(string(cfg.Provider), cfg.Extra); len(vs) > 0 {
		return fmt.Errorf("%w: Config.Extra[%q]: %s", ErrConfig, vs[0].Path, vs[0].Msg)
	}
	if strings.TrimSpace(cfg.System) == "" && cfg.System != "" {
		return fmt.Errorf("%w: Config.System is whitespace only (Anthropic refuses whitespace-only text blocks); leave it empty or give it text", ErrConfig)
	}
	for i, s := range cfg.SystemItems {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("%w: Config.SystemItems[%d] is empty or whitespace only; drop it", ErrConfig, i)
		}
	}
	return nil
}

// blank reports text with nothing but white space.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

// shortenedNote is the pointer that ends a description cut to fit the
// provider's cap; with a tool_search in the session, it says how to read
// the rest.
func shortenedNote(name string, searchable bool) string {
	if searchable {
		return ` [Shortened to the provider's 1,024-character limit: tool_search {"tool_names": ["` + name + `"]} returns the full description.]`
	}
	return " [Shortened to the provider's 1,024-character limit.]"
}

// shortenDescription returns d cut to fit limit characters with note at
// its end: at the last sentence end in the second half of the room, or
// else at the last space there ("…" marking the cut), or else on a rune.
// The cut is a pure function of its inputs.
func shortenDescription(d, note string, limit int) string {
	room := limit - utf8.RuneCountInString(note)
	if room <= 0 {
		return ""
	}
	// head is d's first room-1 runes: one rune is kept for "…".
	end, n := len(d), 0
	for i := range d {
		if n == room-1 {
			end = i
			break
		}
		n++
	}
	head := d[:end]
	half := len(head) / 2
	cut := -1
	for _, sep := range []string{".\n", ". ", "!\n", "! ", "?\n", "? ", "\n\n"} {
		if i := strings.LastIndex(head, sep); i >= half && i+1 > cut {
			cut = i + 1
		}
	}
	if cut > 0 {
		return strings.TrimRight(head[:cut], " \n") + note
	}
	if i := strings.LastIndexAny(head, " \n\t"); i >= half {
		return strings.TrimRight(head[:i], " \n\t") + "…" + note
	}
	return head + "…" + note
}

// capDescriptions shortens every description in tools over the cap of a
// provider that has one and returns the names of the tools it shortened. With searchable
// (the session has tool_search) the note of a tool that is not deferred
// points the model to tool_search, which returns the full text with the
// schema.
func capDescriptions(tools []frozenTool, searchable bool) []string {
	var cut []string
	for i := range tools {
		t := &tools[i]
		if utf8.RuneCountInString(t.Description) <= maxDescription {
			continue
		}
		t.Description = shortenDescription(t.Description, shortenedNote(t.Name, searchable && !t.Deferred), maxDescription)
		cut = append(cut, t.Name)
	}
	return cut
}
