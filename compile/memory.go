package compile

import (
	"math"
	"time"

	"github.com/tenure-dev/tenure"
)

// MemoryRanking weighs the blended ranking of memories (objects with
// tenure.Memory): similarity to the query, recency with a half-life, and
// frequency, how many memories of the candidate set share the memory's
// entity (memory-model.md). Weights need not sum to 1; zero weights drop a
// signal.
type MemoryRanking struct {
	Similarity   float64 `json:"similarity"`
	Recency      float64 `json:"recency"`
	Frequency    float64 `json:"frequency"`
	HalfLifeDays float64 `json:"half_life_days"`
	// NoFill turns off the foundation set and the fill of free budget: a
	// memory that matches nothing is irrelevant (an ablation).
	NoFill bool `json:"no_fill,omitempty"`
}

// DefaultMemoryRanking is the spec's blend: similarity 40%, recency 30%
// (a 14-day half-life), frequency 30%.
var DefaultMemoryRanking = MemoryRanking{Similarity: 0.4, Recency: 0.3, Frequency: 0.3, HalfLifeDays: 14}

// UseRecorder is told which stored memories a compilation included. It
// must not block: it is called on the compilation's path (see
// memory.UseTracker, which batches them off it).
type UseRecorder interface {
	RecordUses(tenant string, ids []string, at time.Time)
}

// memoryFrequency returns, for every entity ref, how many live memory
// candidates name it, and the largest count.
func memoryFrequency(items []*item) (map[string]int, int) {
	counts := map[string]int{}
	top := 0
	seen := map[*tenure.Object]bool{}
	for _, it := range items {
		m := it.obj.Memory
		if m == nil || seen[it.obj.Object] {
			continue
		}
		seen[it.obj.Object] = true
		for _, ref := range m.EntityRefs {
			counts[ref]++
			top = max(top, counts[ref])
		}
	}
	return counts, top
}

// blend scores a memory: similarity (rel, the relevance every object
// gets) blended with recency and frequency. A memory that does not match
// the query scores 0 here: only the foundation set and the fill (see
// fillTier) bring it in.
func (r *run) blend(it *item, rel float64) float64 {
	w := r.c.opt.MemoryRanking
	if rel <= 0 {
		return 0
	}
	m := it.obj.Memory
	half := w.HalfLifeDays
	if half <= 0 {
		half = DefaultMemoryRanking.HalfLifeDays
	}
	age := r.at.Sub(it.obj.MemoryActivity()).Hours() / 24
	it.rec = math.Pow(0.5, math.Max(0, age)/half)
	freq := 0.0
	if r.freqTop > 0 {
		for _, ref := range m.EntityRefs {
			freq = math.Max(freq, float64(r.freq[ref])/float64(r.freqTop))
		}
	}
	total := w.Similarity + w.Recency + w.Frequency
	if total <= 0 {
		return rel
	}
	return (w.Similarity*rel + w.Recency*it.rec + w.Frequency*freq) / total
}

// fillRecentDays is how recently a memory must have been confirmed or
// used to fill free budget when it matches nothing.
const fillRecentDays = 14.0

// fillTier gives a stored memory-section item that matches nothing a tier
// when it may still be compiled: the foundation set (pinned: important;
// importance 3: useful), and, as filler taking only what every other
// section leaves (minimal), memories of importance 2 and anything
// confirmed or used within fillRecentDays. Others stay irrelevant. Its
// score orders the filler: importance, then recency.
func (r *run) fillTier(it *item) Tier {
	o := it.obj.Object
	if it.origin != fromStore || it.section != SectionMemory || it.noFill || it.docID != "" || r.c.opt.MemoryRanking.NoFill {
		return TierIrrelevant
	}
	imp := 1
	if o.Memory != nil {
		imp = o.Memory.EffectiveImportance()
	}
	age := r.at.Sub(o.MemoryActivity()).Hours() / 24
	rec := math.Pow(0.5, math.Max(0, age)/fillRecentDays)
	it.score = 0.01 * (float64(imp) + rec) / 4
	switch {
	case o.Memory != nil && o.Memory.Pinned:
		it.fill = "foundation"
		return TierImportant
	case o.Memory != nil && imp == tenure.ImportanceCritical:
		it.fill = "foundation"
		return TierUseful
	case imp >= tenure.ImportanceSignificant || age <= fillRecentDays:
		it.fill = "fill"
		return TierMinimal
	}
	it.score = 0
	return TierIrrelevant
}

// recordUses tells the UseRecorder which stored memories were compiled.
func (r *run) recordUses() {
	u := r.c.opt.Uses
	if u == nil || r.req.AsOf != nil {
		return
	}
	var ids []string
	seen := map[string]bool{}
	for _, pl := range r.plans {
		for _, i := range pl.packed {
			for _, it := range pl.blocks[i].items {
				if it.origin == fromStore && it.obj.Memory != nil && !seen[it.obj.ObjectID] {
					seen[it.obj.ObjectID] = true
					ids = append(ids, it.obj.ObjectID)
				}
			}
		}
	}
	if len(ids) > 0 {
		u.RecordUses(r.p.TenantID, ids, r.at)
	}
}
