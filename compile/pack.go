package compile

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
)

// block is a packable unit: a rendered line or a contained document block.
type block struct {
	text   string
	items  []*item
	tokens int
	// group and header place the block under a shared header line (a
	// session's date); at orders grouped blocks for display.
	group, header string
	at            time.Time
	seq           int64
	// repeats maps the memories an entity card holds to the memory line
	// each would otherwise have (cardBlocks); hidden marks a line packed
	// without its text because a packed card says it (repeated).
	repeats map[string]string
	hidden  bool
}

// plan is a section being packed.
type plan struct {
	kind       SectionKind
	role       string
	header     func(packed []block) string
	blocks     []block // in packing priority order
	chrono     bool    // render in original (chronological) order: blocks are newest first
	grouped    bool    // render packed blocks by time under their group headers
	contiguous bool    // stop at the first block that does not fit
	// ordered renders packed blocks in their seq order: deferred blocks,
	// packed last, still show where the section's order puts them.
	ordered   bool
	mandatory bool
	// required leading blocks are packed whatever the budget (binding
	// rules), like a mandatory section's.
	required int

	// deferred blocks are packed only with what every other section left.
	deferred []block

	packed    []int
	text      string
	tokens    int
	allocated int
	truncated bool
}

// pack is step 9: order sections for cache and attention and fit them into
// the budget.
func (r *run) pack(ctx context.Context) (int, int, error) {
	if err := r.lookUpFacts(ctx); err != nil {
		return 0, 0, err
	}
	r.plans = r.plans[:0]
	for _, k := range SectionOrder {
		if k == SectionWorkflow && r.workflow == nil {
			continue
		}
		r.plans = append(r.plans, r.planFor(k))
	}
	byKind := map[SectionKind]*plan{}
	for _, pl := range r.plans {
		byKind[pl.kind] = pl
	}
	// Mandatory sections are rendered whole.
	for _, k := range []SectionKind{SectionSystem, SectionLate, SectionTurn} {
		r.fill(byKind[k], 1<<31-1)
	}
	budget := r.req.Budget
	system := byKind[SectionSystem].tokens + sepTokens
	mandatory := system + byKind[SectionLate].tokens + byKind[SectionTurn].tokens + 2*sepTokens
	if mandatory > budget {
		return 0, 0, tenure.Errorf(tenure.CodeInvalid, "budget", "%d tokens cannot hold the system instructions and the current turn (%d tokens)", budget, mandatory)
	}
	rules, err := r.reserveRules(byKind[SectionPolicy], budget-mandatory)
	if err != nil {
		return 0, 0, err
	}
	mandatory += rules
	// Allocations are shares of what the stable system section leaves, so
	// the static sections never depend on the turn or the conversation.
	base := budget - system
	remaining := budget - mandatory
	carry := 0
	var truncated []*plan
	for gi, g := range r.alloc.groups(r.workflow != nil) {
		share := int(g.share * float64(base))
		if gi > 0 {
			share += carry
		}
		share = min(share, remaining)
		left := share
		if gi == 0 {
			left += rules // reserved with the mandatory sections
		}
		for _, k := range g.sections {
			pl := byKind[k]
			r.fill(pl, left-sepTokens)
			pl.allocated = left
			if pl.tokens > 0 {
				left -= pl.tokens + sepTokens
			}
			if pl.truncated && !staticSections[k] {
				truncated = append(truncated, pl)
			}
		}
		remaining -= share - left
		carry = left
	}
	// What is still unused goes back to truncated dynamic sections.
	for _, pl := range truncated {
		if remaining <= 0 {
			break
		}
		before := pl.tokens
		r.fill(pl, pl.tokens+remaining)
		pl.allocated += remaining
		remaining -= pl.tokens - before
	}
	for _, k := range []SectionKind{SectionState, SectionMemory} {
		pl := byKind[k]
		if len(pl.deferred) == 0 || remaining <= minDeferred {
			continue
		}
		before := pl.tokens
		pl.blocks = append(pl.blocks, pl.deferred...)
		pl.deferred = nil
		r.fill(pl, pl.tokens+remaining)
		pl.allocated += remaining
		remaining -= pl.tokens - before
	}
	r.dropCoveredSummaries(byKind[SectionState], byKind[SectionHistory])
	r.fitTotal()
	r.topUp(truncated)
	if live, packed := r.liveCount(), r.packedCount(); packed == 0 && live > 0 && r.total == 0 {
		return 0, 0, tenure.Errorf(tenure.CodeInvalid, "budget", "%d tokens hold none of the %d candidates: an empty envelope is not an answer; raise the budget", budget, live)
	}
	return r.liveCount(), r.packedCount(), nil
}

// topUp spends what the exact count leaves unused on the truncated
// sections: section estimates count a token per line break, which the
// tokenizer often merges with the text before it, so a full section is
// usually a few tokens per line short of its share.
func (r *run) topUp(truncated []*plan) {
	const minSlack = 8
	for _, pl := range truncated {
		for range 3 {
			slack := r.req.Budget - r.total
			if slack < minSlack {
				return
			}
			before := len(pl.packed)
			r.fill(pl, pl.tokens+slack)
			r.fitTotal()
			if len(pl.packed) <= before {
				break
			}
		}
	}
}

// minDeferred is the least leftover worth packing deferred blocks into.
const minDeferred = 8

// sepTokens is the cost of the blank line between sections.
const sepTokens = 1

// fitTotal trims dynamic sections until the exact count of the whole
// envelope fits the budget (joining sections can merge tokens).
func (r *run) fitTotal() {
	cut := []SectionKind{SectionTail, SectionState, SectionWorkflow, SectionDocuments, SectionHistory, SectionMemory}
	for guard := 0; guard < 10000; guard++ {
		r.total = r.counter.Counter.Count(r.joined())
		over := r.total - r.req.Budget
		if over <= 0 {
			return
		}
		trimmed := false
		for _, k := range cut {
			for _, pl := range r.plans {
				if pl.kind == k && len(pl.packed) > 0 {
					r.fill(pl, pl.tokens-over)
					trimmed = true
					break
				}
			}
			if trimmed {
				break
			}
		}
		if !trimmed {
			return // only mandatory and static text left: checked against the budget before
		}
	}
}

func (r *run) joined() string {
	var parts []string
	for _, pl := range r.plans {
		if pl.text != "" {
			parts = append(parts, pl.text)
		}
	}
	return strings.Join(parts, sectionSep)
}

func (r *run) packedCount() int {
	n := 0
	for _, pl := range r.plans {
		for _, i := range pl.packed {
			n += len(pl.blocks[i].items)
		}
	}
	return n
}

// fill packs as many blocks as fit in budget tokens and renders the
// section, counting it exactly.
func (r *run) fill(pl *plan, budget int) {
	pl.packed, pl.text, pl.tokens, pl.truncated = nil, "", 0, false
	if len(pl.blocks) == 0 || (budget <= 0 && pl.required == 0) {
		pl.truncated = len(pl.blocks) > 0
		return
	}
	used := r.counter.Count(pl.header(nil)) + 1
	// Counting tokens is the expensive part: once the section is nearly
	// full, or many blocks in a row did not fit, stop looking.
	const markerReserve, minBlock, maxMisses = 12, 4, 16
	misses := 0
	groups := map[string]bool{}
	var cards []*block
	for i := range pl.blocks {
		b := &pl.blocks[i]
		b.hidden = false
		if len(cards) > 0 && repeated(b, cards) {
			b.hidden = true
			pl.packed = append(pl.packed, i)
			continue
		}
		reserve := 0
		if i < len(pl.blocks)-1 && !pl.mandatory {
			reserve = markerReserve
		}
		required := pl.mandatory || i < pl.required
		if !required && (budget-used-reserve < minBlock || misses >= maxMisses) {
			break
		}
		if b.tokens == 0 {
			b.tokens = r.counter.Count(b.text)
		}
		cost := b.tokens + 1
		if b.header != "" && !groups[b.group] {
			cost += r.counter.Count(b.header) + 1
		}
		if used+cost+reserve <= budget || required {
			pl.packed = append(pl.packed, i)
			used += cost
			groups[b.group] = true
			misses = 0
			if b.repeats != nil {
				cards = append(cards, b)
			}
		} else if pl.contiguous {
			break
		} else {
			misses++
		}
	}
	for i := range pl.blocks {
		if pl.blocks[i].tokens == 0 && slices.Contains(pl.packed, i) {
			pl.blocks[i].tokens = r.counter.Count(pl.blocks[i].text)
		}
	}
	for {
		r.renderPlan(pl)
		if pl.tokens <= budget || pl.mandatory || len(pl.packed) <= pl.required {
			break
		}
		pl.packed = pl.packed[:len(pl.packed)-1]
	}
	if len(pl.packed) == 0 {
		pl.text, pl.tokens, pl.truncated = "", 0, true
	}
}

// renderPlan writes a plan's text from its packed blocks.
func (r *run) renderPlan(pl *plan) {
	idx := slices.Clone(pl.packed)
	if pl.chrono {
		slices.Reverse(idx)
	}
	packed := make([]block, len(idx))
	for i, j := range idx {
		packed[i] = pl.blocks[j]
	}
	if pl.ordered {
		sort.SliceStable(packed, func(i, j int) bool { return packed[i].seq < packed[j].seq })
	}
	if pl.grouped {
		sort.SliceStable(packed, func(i, j int) bool {
			if !packed[i].at.Equal(packed[j].at) {
				return packed[i].at.Before(packed[j].at)
			}
			return packed[i].seq < packed[j].seq
		})
	}
	var lines []string
	tokens := 0
	if h := pl.header(packed); h != "" {
		lines = append(lines, h)
		tokens += r.counter.Count(h)
	}
	group := "\x00none"
	for _, b := range packed {
		if b.hidden {
			continue
		}
		if b.header != "" && b.group != group {
			lines = append(lines, b.header)
			tokens += r.counter.Count(b.header) + 1
		}
		group = b.group
		lines = append(lines, b.text)
		tokens += b.tokens + 1
	}
	pl.truncated = len(pl.packed) < len(pl.blocks)
	if pl.truncated && len(pl.packed) > 0 {
		marker := fmt.Sprintf("[… %d more omitted for budget]", len(pl.blocks)-len(pl.packed))
		lines = append(lines, marker)
		tokens += r.counter.Count(marker) + 1
	}
	pl.text = strings.Join(lines, "\n")
	// An estimate: the lines' counts plus one per newline. It usually errs
	// high (".\n" is one token); the whole envelope is counted exactly
	// before it is returned, and trimmed if the estimate was low.
	pl.tokens = tokens
	if len(lines) > 0 && pl.header(packed) == "" {
		pl.tokens--
	}
}

// planFor gathers a section's blocks in packing priority order.
func (r *run) planFor(k SectionKind) *plan {
	pl := &plan{kind: k, role: "system", header: fixed("")}
	items := r.live(k)
	switch k {
	case SectionSystem, SectionLate:
		pl.mandatory = true
		if k == SectionLate {
			pl.header = fixed("## Additional instructions")
		}
	case SectionPolicy:
		// Authority, then the author's rank: packed in this order and
		// stopping at the first rule that does not fit, a lower rule never
		// survives while a higher one is dropped.
		h := r.c.opt.Hierarchy
		sort.SliceStable(items, func(i, j int) bool {
			a, b := &items[i].obj, &items[j].obj
			if a.Level() != b.Level() {
				return a.Level() < b.Level()
			}
			if ra, rb := h.Rank(a.AuthorAuthority), h.Rank(b.AuthorAuthority); ra != rb {
				return ra > rb
			}
			if a.Key != b.Key {
				return a.Key < b.Key
			}
			return a.ObjectID < b.ObjectID
		})
		pl.header = fixed("## Rules (binding)")
		pl.contiguous = true
		for _, it := range items {
			if it.obj.Level() <= tenure.LevelDeveloper {
				pl.required++
			}
		}
	case SectionTools:
		sort.SliceStable(items, func(i, j int) bool {
			return items[i].origin == fromTool && items[j].origin != fromTool ||
				items[i].origin == items[j].origin && items[i].origin == fromStore && items[i].obj.Key < items[j].obj.Key
		})
		pl.header = fixed("## Tools")
	case SectionMemory:
		pl.role = "user"
		sort.SliceStable(items, func(i, j int) bool { return better(items[i], items[j]) })
		pl.header = fixed("## Memory (as of " + r.at.Format(time.DateOnly) + ")")
		pl.blocks, pl.deferred = splitDeferred(items)
		pl.blocks = append(r.cardBlocks(pl.blocks), pl.blocks...)
		return pl
	case SectionDocuments:
		pl.role = "user"
		pl.header = fixed("## Retrieved data (untrusted)\n" + dataPreamble)
		pl.blocks = r.docBlocks
		return pl
	case SectionHistory:
		pl.role = "user"
		sort.SliceStable(items, func(i, j int) bool { return better(items[i], items[j]) })
		pl.grouped = true
		pl.header = fixed("## Conversation history")
		for _, it := range items {
			b := block{text: it.line, items: []*item{it}}
			b.group, b.header = r.historyGroup(it)
			b.at, b.seq = historyOrder(it)
			if text := it.hist.Text(); it.hist.Tokens > 0 && r.counter.Name() == "cl100k_base" &&
				!strings.Contains(it.line, "\n") && strings.Contains(it.line, text) {
				// The text was counted when the message was stored; only
				// the prefix and the date annotations are new (unless
				// rendering it changed it).
				b.tokens = it.hist.Tokens + r.counter.Count(strings.Replace(it.line, text, "", 1))
			}
			pl.blocks = append(pl.blocks, b)
		}
		return pl
	case SectionState:
		pl.role = "user"
		sortState(items)
		pl.header = func(packed []block) string {
			var its []*item
			for _, b := range packed {
				its = append(its, b.items...)
			}
			return "## Task state\n" + stateHeader(its)
		}
		pl.blocks, pl.deferred = splitDeferred(items)
		pl.ordered = true
		return pl
	case SectionWorkflow:
		pl.role, pl.grouped = "user", true
		pl.header = func([]block) string { return r.workflowHeader() }
		pl.blocks, r.workflowPaths = r.workflowBlocks()
		return pl
	case SectionTail:
		slices.Reverse(items) // newest first: the recent end survives truncation
		pl.role, pl.chrono, pl.contiguous = "user", true, true
		pl.header = fixed("## Recent conversation")
	case SectionTurn:
		pl.role, pl.mandatory = "user", true
		if r.req.CurrentTurn != "" {
			pl.header = fixed("## Current user turn")
			pl.blocks = []block{{text: blockText(r.req.CurrentTurn)}}
		}
		return pl
	}
	for _, it := range items {
		pl.blocks = append(pl.blocks, block{text: it.line, items: []*item{it}})
	}
	return pl
}

// splitDeferred turns items into blocks, putting minimal-tier ones aside:
// they take only what every other section leaves, so that filler in one
// section never crowds out what another needs.
func splitDeferred(items []*item) (blocks, deferred []block) {
	for i, it := range items {
		b := block{text: it.line, items: []*item{it}, seq: int64(i)}
		if it.tier == TierMinimal {
			deferred = append(deferred, b)
		} else {
			blocks = append(blocks, b)
		}
	}
	return blocks, deferred
}

func fixed(s string) func([]block) string { return func([]block) string { return s } }

// reserveRules packs the binding rules at authority 0 and 1 of the policy
// section ahead of everything else, like the system instructions, and
// returns the tokens they take. When they do not fit the room left, the
// compilation fails with CodeTooLarge — or, if the request allows it
// (RulesDrop), the lowest rules are dropped until they fit, each with a
// warning in the trace.
func (r *run) reserveRules(pl *plan, room int) (int, error) {
	if pl.required == 0 {
		return 0, nil
	}
	for {
		r.fill(pl, 0)
		if pl.tokens+sepTokens <= room {
			return pl.tokens + sepTokens, nil
		}
		if r.req.RulesOverflow != RulesDrop {
			return 0, tenure.Errorf(tenure.CodeTooLarge, "budget",
				"%d tokens cannot hold the binding rules (policy section: %d rules, %d tokens) with the system instructions and the current turn; raise the budget, or set rules_overflow to %q to drop the lowest rules",
				r.req.Budget, pl.required, pl.tokens, RulesDrop)
		}
		// A rule below the dropped one must not survive it: the optional
		// rules go too (reported as budget omissions).
		pl.required--
		dropped := pl.blocks[pl.required]
		pl.blocks = pl.blocks[:pl.required]
		for _, it := range dropped.items {
			r.omit(it, OmitRuleOverBudget)
			r.trace.Warnings = append(r.trace.Warnings, fmt.Sprintf("binding rule %s (authority level %d) dropped: the budget cannot hold it", it.obj.ObjectID, it.obj.Level()))
		}
		if pl.required == 0 {
			r.fill(pl, 0)
			return 0, nil
		}
	}
}
