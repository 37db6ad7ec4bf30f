package summarize

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/llm"
)

// Spine is a user's summary spine: the long-term picture every
// conversation starts from, in four sections.
type Spine struct {
	Profile   []string `json:"profile"`
	Projects  []string `json:"projects"`
	People    []string `json:"people"`
	OpenLoops []string `json:"open_loops"`
}

// MaxSpineItems bounds each section of a spine.
const MaxSpineItems = 8

// SpineInput is what a spine is written from: the previous spine (zero
// for the first) and notes, the user's current memories filed by section,
// most important first.
type SpineInput struct {
	Prev  Spine
	Notes Spine
}

// SpineWriter writes summary spines. Extractive, LLM and Chain are ones.
type SpineWriter interface {
	// Spine returns the new spine, clamped. Errors: tenure.CodeInvalid (a
	// model's answer was unusable), tenure.CodeTimeout,
	// tenure.CodeUnavailable.
	Spine(ctx context.Context, in SpineInput) (Spine, error)
}

// sections lists a spine's sections with their headings, in order.
func (s *Spine) sections() []struct {
	name  string
	items *[]string
} {
	return []struct {
		name  string
		items *[]string
	}{{"PROFILE", &s.Profile}, {"PROJECTS", &s.Projects}, {"PEOPLE", &s.People}, {"OPEN_LOOPS", &s.OpenLoops}}
}

// Clamp trims, deduplicates and bounds every section.
func (s *Spine) Clamp() {
	for _, sec := range s.sections() {
		var out []string
		for _, it := range *sec.items {
			it = clampText(strings.Join(strings.Fields(strings.ToValidUTF8(it, "\uFFFD")), " "), MaxItemChars)
			if it == "" || slices.Contains(out, it) {
				continue
			}
			out = append(out, it)
			if len(out) == MaxSpineItems {
				break
			}
		}
		*sec.items = out
	}
}

// Empty reports whether every section is empty.
func (s Spine) Empty() bool {
	return len(s.Profile)+len(s.Projects)+len(s.People)+len(s.OpenLoops) == 0
}

// Render writes the spine as text: each section's heading and its
// entries, empty sections left out.
func (s Spine) Render() string {
	var b strings.Builder
	for _, sec := range s.sections() {
		if len(*sec.items) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(sec.name + ":\n")
		for _, it := range *sec.items {
			b.WriteString("- " + it + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Spine implements SpineWriter without a model: each section holds the
// notes, then the previous spine's entries the notes do not restate, up
// to MaxSpineItems. It never fails.
func (e *Extractive) Spine(_ context.Context, in SpineInput) (Spine, error) {
	out := in.Notes
	prev := in.Prev
	ps, os := prev.sections(), out.sections()
	for i := range os {
		*os[i].items = append(slices.Clone(*os[i].items), *ps[i].items...)
	}
	out.Clamp()
	return out, nil
}

var spinePrompt = parsePrompt("prompt/spine_v1.tmpl")

// spineData is what prompt/spine_v1.tmpl renders.
type spineData struct {
	Prev, Notes            Spine
	MaxItems, MaxItemChars int
}

// Spine implements SpineWriter with prompt/spine_v1.tmpl. Errors:
// tenure.CodeInvalid when the answer holds no JSON object with a section,
// tenure.CodeTimeout, and the Completer's errors.
func (l *LLM) Spine(ctx context.Context, in SpineInput) (Spine, error) {
	in.Prev.Clamp()
	in.Notes.Clamp()
	req, err := llm.RenderRequest(spinePrompt, spineData{Prev: in.Prev, Notes: in.Notes, MaxItems: MaxSpineItems, MaxItemChars: MaxItemChars}, 1536)
	if err != nil {
		return Spine{}, fmt.Errorf("summary spine: %w", err)
	}
	text, err := l.complete(ctx, req)
	if err != nil {
		return Spine{}, fmt.Errorf("summary spine: %w", err)
	}
	raw, err := llm.ExtractJSON(text)
	if err != nil {
		return Spine{}, fmt.Errorf("summary spine: %w", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Spine{}, fmt.Errorf("summary spine: %w", tenure.Errorf(tenure.CodeInvalid, "", "model output holds no JSON object: %v", err))
	}
	s := Spine{Profile: jsonStrings(fields["profile"]), Projects: jsonStrings(fields["projects"]),
		People: jsonStrings(fields["people"]), OpenLoops: jsonStrings(fields["open_loops"])}
	s.Clamp()
	if s.Empty() && !in.Notes.Empty() {
		return Spine{}, fmt.Errorf("summary spine: %w", tenure.Errorf(tenure.CodeInvalid, "", "model output has no section"))
	}
	return s, nil
}

// Spine implements SpineWriter: the primary's spine (when it is a
// SpineWriter and answers), else the secondary's, else the extractive
// one.
func (c *Chain) Spine(ctx context.Context, in SpineInput) (Spine, error) {
	for _, s := range []Summarizer{c.primary, c.secondary} {
		w, ok := s.(SpineWriter)
		if !ok || w == nil {
			continue
		}
		sp, err := guard(func() (Spine, error) { return w.Spine(ctx, in) })
		if err == nil {
			return sp, nil
		}
	}
	sp, _ := NewExtractive(Options{}).Spine(ctx, in)
	return sp, nil
}
