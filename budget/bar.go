package budget

import (
	"fmt"
	"strings"

	"github.com/toolshelf/toolshelf/internal/engine/textfmt"
)

// Segment is one part of the context bar: a label and its tokens.
type Segment struct {
	Label  string `json:"label"`
	Tokens Tokens `json:"tokens"`
}

// Bar is the context window as text: base, system, tools and messages
// against the window, and what is left free.
type Bar struct {
	// Segments are drawn in order (base, system, tools, messages ...).
	Segments []Segment `json:"segments"`
	// Window is the context window in tokens; 0 means unknown, and the bar
	// then reports the used total without a share or free space.
	Window int `json:"-"`
}

// BarOptions configures [Bar.Render]. Nil means defaults.
type BarOptions struct {
	// Width is the bar's width in cells; 0 means 40.
	Width int
	// Color draws an over-budget bar in ANSI red. Set it for terminals only.
	Color bool
}

// Glyphs of the bar: measured tokens, estimated tokens, free space, and the
// overflow marker.
const (
	glyphMeasured  = '█'
	glyphEstimated = '▒'
	glyphFree      = '░'
)

// BarFor builds the bar of a measurement: base (tokens the provider adds
// that no section shows, 0 if unknown), then system, tools (resident tools,
// entry tools and the index) and messages (with injection blocks).
func BarFor(m *Measurement, base Tokens, window int) Bar {
	tools := m.ByClass(ClassTool).add(m.ByClass(ClassEntry)).add(m.ByClass(ClassIndex))
	msgs := m.ByClass(ClassMessage).add(m.ByClass(ClassInjection))
	b := Bar{Window: window}
	if base.N > 0 {
		b.Segments = append(b.Segments, Segment{"base", base})
	}
	b.Segments = append(b.Segments,
		Segment{"system", m.ByClass(ClassSystem).Tokens},
		Segment{"tools", tools.Tokens},
		Segment{"messages", msgs.Tokens})
	return b
}

// used returns the tokens of all segments.
func (b Bar) used() Tokens {
	var t Tokens
	for _, s := range b.Segments {
		t = t.Add(s.Tokens)
	}
	return t
}

// free returns the free tokens and whether the window is known. Negative
// free means over budget.
func (b Bar) free() (int, bool) {
	if b.Window <= 0 {
		return 0, false
	}
	return b.Window - b.used().N, true
}

// over reports whether the segments exceed a known window.
func (b Bar) over() bool {
	f, ok := b.free()
	return ok && f < 0
}

// Render draws the bar and its summary line, e.g.
//
//	[████████████████▒▒▒▒▒▒░░] 78,000 / 80,000 tokens · 97% · free 2,000
//
// Estimated segments are drawn ▒ and their figures carry "~". An unknown
// window draws no bar: "78,000 tokens · window unknown".
func (b Bar) Render(opts *BarOptions) string {
	width := 40
	if opts != nil && opts.Width > 0 {
		width = opts.Width
	}
	used := b.used()
	free, known := b.free()
	if !known {
		return fmt.Sprintf("%s tokens · window unknown", used)
	}
	scale := max(b.Window, used.N)
	var bar strings.Builder
	drawn, acc := 0, 0
	for _, s := range b.Segments {
		acc += s.Tokens.N
		// Cumulative rounding keeps the cells in proportion to the sums.
		end := acc * width / scale
		if s.Tokens.N > 0 && end == drawn && end < width {
			end++ // a non-empty segment shows at least one cell
		}
		g := glyphMeasured
		if s.Tokens.Estimate {
			g = glyphEstimated
		}
		for ; drawn < end; drawn++ {
			bar.WriteRune(g)
		}
	}
	for ; drawn < width; drawn++ {
		bar.WriteRune(glyphFree)
	}
	pct := used.N * 100 / b.Window
	line := fmt.Sprintf("[%s] %s / %s tokens · %d%% · ", bar.String(), used, textfmt.Thousands(b.Window), pct)
	if free < 0 {
		line += fmt.Sprintf("over budget by %s", Tokens{N: -free, Estimate: used.Estimate})
		if opts != nil && opts.Color {
			line = "\x1b[31m" + line + "\x1b[0m"
		}
		return line
	}
	return line + "free " + Tokens{N: free, Estimate: used.Estimate}.String()
}

// legend lists the segments with their tokens: "system 1,200 · tools ~9,000 · messages 300".
func (b Bar) legend() string {
	parts := make([]string, len(b.Segments))
	for i, s := range b.Segments {
		parts[i] = s.Label + " " + s.Tokens.String()
	}
	return strings.Join(parts, " · ")
}
