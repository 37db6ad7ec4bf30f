package compile

import (
	"slices"
	"time"
)

// dropCoveredSummaries omits the conversation summaries the packed history
// makes redundant. A thread's summary (rolling or of a session) tells its
// messages up to its valid_from; when the history section holds every
// message of that thread the reader may read, from the first one up to that
// time, the model reads them all in full and the summary only repeats
// them. It is omitted with reason covered_by_history, and the tokens it
// held go to the sections the budget cut.
func (r *run) dropCoveredSummaries(state, history *plan) {
	if state == nil || history == nil || len(history.packed) == 0 {
		return
	}
	covered := coveredUntil(history)
	if len(covered) == 0 {
		return
	}
	isCovered := func(b *block) bool {
		if len(b.items) != 1 || !isSummary(b.items[0].obj.Object) {
			return false
		}
		o := b.items[0].obj.Object
		thread, ok := objectThread(o)
		until, seen := covered[thread]
		return ok && seen && !o.ValidFrom.After(until)
	}
	drop := func(b *block) bool {
		if !isCovered(b) {
			return false
		}
		r.omit(b.items[0], OmitCoveredByHistory)
		return true
	}
	state.deferred = slices.DeleteFunc(state.deferred, func(b block) bool { return drop(&b) })
	packed := map[int]bool{}
	for _, i := range state.packed {
		packed[i] = true
	}
	var blocks []block
	var kept []int
	for i := range state.blocks {
		if drop(&state.blocks[i]) {
			continue
		}
		if packed[i] {
			kept = append(kept, len(blocks))
		}
		blocks = append(blocks, state.blocks[i])
	}
	if len(blocks) < len(state.blocks) {
		state.blocks, state.packed = blocks, kept
		r.renderPlan(state)
	}
}

// coveredUntil returns, for each thread of the packed history, the time of
// the last message of the unbroken run of packed messages that starts at
// the thread's first (position 1): every message up to it is in the
// history.
func coveredUntil(history *plan) map[string]time.Time {
	at := map[string]map[int64]time.Time{}
	for _, i := range history.packed {
		for _, it := range history.blocks[i].items {
			m := it.hist
			if m == nil {
				continue
			}
			if at[m.ThreadID] == nil {
				at[m.ThreadID] = map[int64]time.Time{}
			}
			at[m.ThreadID][m.Pos] = m.CreatedAt
		}
	}
	covered := map[string]time.Time{}
	for thread, byPos := range at {
		for p := int64(1); ; p++ {
			t, ok := byPos[p]
			if !ok {
				break
			}
			covered[thread] = t
		}
	}
	return covered
}
