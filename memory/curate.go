package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/tenure-dev/tenure"
)

// Curator store: what Curate reads and writes through.
type CuratorStore interface {
	Store
	// Retire archives objects (RetireOptions.ObjectIDs). Errors:
	// CodeForbidden, CodeNotFound.
	Retire(ctx context.Context, p tenure.Principal, opt tenure.RetireOptions) (tenure.RetireReport, error)
}

// CurateOptions configures Curate; the zero value works.
type CurateOptions struct {
	Scope tenure.Scope `json:"scope"`
	// Similarity is the word overlap (Jaccard, of content words) at which
	// two memories of one entity and fact type are near-duplicates
	// (default 0.6).
	Similarity float64 `json:"similarity,omitempty"`
	// StaleTrivial and StaleStandard are how long a memory of importance
	// 0, and of importance 1, may go unconfirmed and unused before it is
	// archived (default 30 and 180 days). Importance 2 and 3 never go
	// stale.
	StaleTrivial  time.Duration `json:"stale_trivial,omitempty"`
	StaleStandard time.Duration `json:"stale_standard,omitempty"`
	DryRun        bool          `json:"dry_run,omitempty"`
	// Now is the clock (default time.Now).
	Now func() time.Time `json:"-"`
}

// CurateReport says what a curator run did.
type CurateReport struct {
	At       time.Time `json:"at"`
	DryRun   bool      `json:"dry_run,omitempty"`
	Memories int       `json:"memories"`
	Folds    []Fold    `json:"folds"`
	// Archived lists the stale memories archived.
	Archived []string `json:"archived"`
}

// Fold is one fold: the memory kept (a new version with source
// curated_fold) and the near-duplicates folded into it and archived.
type Fold struct {
	Kept   string   `json:"kept"`
	Folded []string `json:"folded"`
}

// Curate folds near-duplicate memories and archives stale ones, as p, in
// the scope: among the active memories of one type, primary entity and
// fact type, those whose content words overlap by Similarity or more are
// folded into the best of them (pinned → importance → recency): it gets a
// new version with source curated_fold, folded_from naming the others
// (and theirs), the highest importance among them and the sum of their
// counters, and the others are archived — kept, not deleted. Memories of
// importance 0 or 1 unconfirmed and unused for longer than their
// staleness window are archived. Pinned memories are never folded or
// archived. A second run with nothing new does nothing (idempotent).
// Errors: those of the store.
func Curate(ctx context.Context, s CuratorStore, p tenure.Principal, opt CurateOptions) (CurateReport, error) {
	if opt.Similarity <= 0 {
		opt.Similarity = 0.6
	}
	if opt.StaleTrivial <= 0 {
		opt.StaleTrivial = 30 * 24 * time.Hour
	}
	if opt.StaleStandard <= 0 {
		opt.StaleStandard = 180 * 24 * time.Hour
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	rep := CurateReport{At: opt.Now().UTC(), DryRun: opt.DryRun, Folds: []Fold{}, Archived: []string{}}
	mems, err := List(ctx, s, p, Query{Scope: opt.Scope, Limit: 10000})
	if err != nil {
		return rep, fmt.Errorf("curate: %w", err)
	}
	rep.Memories = len(mems)
	groups := map[string][]tenure.Object{}
	var order []string
	for _, o := range mems {
		m := o.Memory
		if m.Pinned {
			continue
		}
		g := string(m.Kind) + "|" + m.PrimaryRef() + "|" + string(m.Subtype.FactType) + "|" + o.UserID + "|" + o.ProjectID
		if groups[g] == nil {
			order = append(order, g)
		}
		groups[g] = append(groups[g], o)
	}
	folded := map[string]bool{}
	for _, g := range order {
		objs := groups[g] // in List's order: the best first
		for i := range objs {
			if folded[objs[i].ObjectID] {
				continue
			}
			var dups []tenure.Object
			wi := words(objs[i].Content)
			for j := i + 1; j < len(objs); j++ {
				if !folded[objs[j].ObjectID] && jaccard(wi, words(objs[j].Content)) >= opt.Similarity {
					dups = append(dups, objs[j])
				}
			}
			if len(dups) == 0 {
				continue
			}
			f, err := fold(ctx, s, p, objs[i], dups, opt.DryRun)
			if err != nil {
				return rep, fmt.Errorf("curate: %w", err)
			}
			for _, id := range f.Folded {
				folded[id] = true
			}
			folded[objs[i].ObjectID] = true
			rep.Folds = append(rep.Folds, f)
		}
	}
	now := rep.At
	var stale []string
	for _, o := range mems {
		m := o.Memory
		if m.Pinned || folded[o.ObjectID] {
			continue
		}
		idle := now.Sub(o.MemoryActivity())
		switch imp := m.EffectiveImportance(); {
		case imp == tenure.ImportanceTrivial && idle > opt.StaleTrivial,
			imp == tenure.ImportanceStandard && idle > opt.StaleStandard:
			stale = append(stale, o.ObjectID)
		}
	}
	if len(stale) > 0 && !opt.DryRun {
		if _, err := s.Retire(ctx, p, tenure.RetireOptions{Scope: opt.Scope, ObjectIDs: stale, Rule: tenure.RetireArchive}); err != nil {
			return rep, fmt.Errorf("curate: archive stale: %w", err)
		}
	}
	rep.Archived = append(rep.Archived, stale...)
	return rep, nil
}

// fold writes the kept memory's curated version and archives the folded.
func fold(ctx context.Context, s CuratorStore, p tenure.Principal, keep tenure.Object, dups []tenure.Object, dry bool) (Fold, error) {
	f := Fold{Kept: keep.ObjectID}
	m := *keep.Memory
	m.Source = tenure.MemoryCuratedFold
	m.FoldedFrom = slices.Clone(m.FoldedFrom)
	imp := m.Level()
	for _, d := range dups {
		f.Folded = append(f.Folded, d.ObjectID)
		m.FoldedFrom = append(m.FoldedFrom, d.ObjectID)
		m.FoldedFrom = append(m.FoldedFrom, d.Memory.FoldedFrom...)
		imp = max(imp, d.Memory.Level())
		m.Confirmations += d.Memory.Confirmations + 1
		m.Uses += d.Memory.Uses
	}
	m.Importance = tenure.Ptr(imp)
	if dry {
		return f, nil
	}
	keep.Memory = &m
	if _, err := s.Put(ctx, p, keep); err != nil {
		return f, fmt.Errorf("fold into %s: %w", keep.ObjectID, err)
	}
	if _, err := s.Retire(ctx, p, tenure.RetireOptions{ObjectIDs: f.Folded, Rule: tenure.RetireArchive}); err != nil {
		return f, fmt.Errorf("archive folded: %w", err)
	}
	return f, nil
}

// words returns the set of lowercase words of s.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out[w] = true
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
