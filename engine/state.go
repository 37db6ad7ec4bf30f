package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/entity"
	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/reconcile"
	"github.com/tenure-dev/tenure/retrieve"
	"github.com/tenure-dev/tenure/slot"
)

// StateChannel is the watermark channel of state extraction.
const StateChannel = "state"

// Defaults for StateOptions.
const (
	DefaultStateMaxMessages   = 50
	DefaultStateMaxCandidates = 25
	DefaultStateTimeout       = 15 * time.Second
)

// StateOptions configures structured-state extraction. The zero value
// works.
type StateOptions struct {
	// MaxMessages caps the messages one run reads (default 50).
	MaxMessages int
	// MaxCandidates caps the candidates one run reconciles (default 25);
	// the rest are dropped as over_cap.
	MaxCandidates int
	// Thresholds are the similarity bands (default 0.92 / 0.85 / +0.02),
	// read only when an Embedder is set.
	Thresholds reconcile.StateThresholds
	// Timeout bounds the extractor's wall-clock time (default 15s).
	Timeout time.Duration
	// Embedder, when set, adds embedding similarity as a signal for the
	// items whose slots do not decide (reconcile.DecideState). Nil, the
	// default, reconciles by slots alone. A *retrieve.HashEmbedder is
	// ignored: hashed n-grams measure shared letters, not meaning, and
	// scored a reversal 0.753 and a changed number 0.976.
	Embedder Embedder
	// EmbedTenant, when set, says whether a tenant's text may be sent to
	// Embedder: a tenant it refuses is reconciled by slots alone.
	EmbedTenant func(tenant string) bool
}

// Embedder turns texts into vectors.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

func (o StateOptions) withDefaults() StateOptions {
	if o.MaxMessages <= 0 {
		o.MaxMessages = DefaultStateMaxMessages
	}
	if o.MaxCandidates <= 0 {
		o.MaxCandidates = DefaultStateMaxCandidates
	}
	o.Thresholds = o.Thresholds.WithDefaults()
	if o.Timeout <= 0 {
		o.Timeout = DefaultStateTimeout
	}
	if _, lexical := o.Embedder.(*retrieve.HashEmbedder); lexical {
		o.Embedder = nil
	}
	return o
}

// scopedChannel is the watermark channel of a reader: a thread's messages
// can be scoped to users and projects, so each scope reads at its own pace
// and never skips messages another scope could not see.
func scopedChannel(channel string, p tenure.Principal, s tenure.Scope) string {
	if p.PersonaID != "" {
		// A persona reads only its own messages and the global ones.
		return channel + ":" + s.UserID + ":" + s.ProjectID + ":@" + p.PersonaID
	}
	return channel + ":" + s.UserID + ":" + s.ProjectID
}

// StateKey is the key a thread's state item is filed under.
func StateKey(thread, uid string) string { return "state/" + thread + "/" + uid }

// ExtractState reads the thread's messages after its state watermark,
// asks x for candidates and reconciles them deterministically into the
// thread's state items (and writes extracted facts as objects). The
// watermark advances in the same transaction as the writes, so a failure
// anywhere leaves both untouched and the next run sees the same messages.
// Batches without a user message are skipped and not consumed. Errors:
// those of the extractor (nothing written), CodeConflict when another
// extraction of the thread committed meanwhile, CodeInvalid for a bad
// thread id.
func (e *Engine) ExtractState(ctx context.Context, p tenure.Principal, thread string, x extract.Extractor) (tenure.ExtractionResult, error) {
	start := time.Now()
	res := tenure.ExtractionResult{ThreadID: thread, Extractor: extract.Name(x)}
	err := e.extractState(ctx, p, thread, x, &res)
	res.DurationMS = time.Since(start).Milliseconds()
	log := e.opt.Logger.With("thread", thread, "messages", res.Messages, "inserted", res.ItemsInserted,
		"merged", res.ItemsMerged, "superseded", res.ItemsSuperseded, "conflicted", res.ItemsConflicted,
		"dropped", res.ItemsDropped, "facts", res.FactsWritten, "duration_ms", res.DurationMS, "skipped", res.SkippedReason)
	if err != nil {
		log.Warn("state.extraction.failed", "err", err)
		return res, fmt.Errorf("extract state: %w", err)
	}
	log.Info("state.extraction.complete")
	return res, nil
}

func (e *Engine) extractState(ctx context.Context, p tenure.Principal, thread string, x extract.Extractor, res *tenure.ExtractionResult) error {
	opt := e.opt.State.withDefaults()
	p, s, _, err := e.readPoint(p, tenure.Read{})
	if err != nil {
		return err
	}
	if thread == "" {
		return tenure.Errorf(tenure.CodeInvalid, "thread_id", "required")
	}
	msgs, wm, had, err := e.pending(ctx, p, s, thread, scopedChannel(StateChannel, p, s), opt.MaxMessages)
	if err != nil {
		return err
	}
	res.Messages = len(msgs)
	switch {
	case len(msgs) == 0:
		res.SkippedReason = "no_new_messages"
		return nil
	case !slices.ContainsFunc(msgs, func(m tenure.Message) bool { return m.Role == "user" }):
		res.SkippedReason = "no_user_messages"
		return nil
	}
	existing, err := e.stateObjects(ctx, p, s, thread)
	if err != nil {
		return err
	}
	batch := extract.Batch{ThreadID: thread, Messages: msgs}
	for _, o := range existing {
		if o.StateItem.Status != "superseded" {
			batch.Existing = append(batch.Existing, *o.StateItem)
		}
	}
	xctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	out, err := x.Extract(xctx, batch)
	cancel()
	if err != nil {
		if xctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			return tenure.Errorf(tenure.CodeTimeout, "", "extractor ran longer than %s", opt.Timeout)
		}
		return err
	}
	for reason, n := range out.Dropped {
		res.ItemsDropped += n
		addDrop(res, reason, n)
	}
	res.ItemsExtracted = len(out.Items)
	if opt.EmbedTenant != nil && !opt.EmbedTenant(p.TenantID) {
		opt.Embedder = nil
	}
	r := &stateRun{e: e, opt: opt, res: res, thread: thread, scope: s, persona: p.PersonaID, msgs: indexMessages(msgs)}
	cands, err := r.prepare(ctx, out.Items, existing)
	if err != nil {
		return err
	}
	last := msgs[len(msgs)-1]
	return e.inTx(ctx, "extract state", func(tx Tx, clk *txClock) error {
		if err := checkWatermark(ctx, tx, p.TenantID, thread, scopedChannel(StateChannel, p, s), wm, had); err != nil {
			return err
		}
		w := &writer{e: e, tx: tx, p: p, clk: clk}
		for _, c := range cands {
			if err := r.apply(ctx, w, c); err != nil {
				return err
			}
		}
		if err := r.writeFacts(ctx, w, out.Facts); err != nil {
			return err
		}
		if err := r.resolveSpeakers(ctx, w, msgs); err != nil {
			return err
		}
		next := tenure.Watermark{ThreadID: thread, Channel: scopedChannel(StateChannel, p, s), CreatedAt: last.CreatedAt, MessageID: last.ID,
			UpdatedAt: clk.next(e.now())}
		res.Watermark = &next
		return tx.SetWatermark(ctx, p.TenantID, next)
	})
}

func addDrop(res *tenure.ExtractionResult, reason string, n int) {
	if res.Dropped == nil {
		res.Dropped = map[string]int{}
	}
	res.Dropped[reason] += n
}

// stateObjects returns the latest version of every state item of the
// thread visible to p, ordered by uid.
func (e *Engine) stateObjects(ctx context.Context, p tenure.Principal, s tenure.Scope, thread string) ([]tenure.Object, error) {
	objs, err := e.List(ctx, p, tenure.Filter{Scope: s, KeyPrefix: StateKey(thread, ""), Limit: 10_000})
	if err != nil {
		return nil, err
	}
	out := objs[:0]
	for _, o := range objs {
		if o.StateItem != nil && o.Current() {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].StateItem.UID < out[j].StateItem.UID })
	return out, nil
}

func indexMessages(msgs []tenure.Message) map[string]*tenure.Message {
	m := make(map[string]*tenure.Message, len(msgs))
	for i := range msgs {
		m[msgs[i].ID] = &msgs[i]
	}
	return m
}

// stateRun is one extraction's reconciliation state.
type stateRun struct {
	e      *Engine
	opt    StateOptions
	res    *tenure.ExtractionResult
	thread string
	scope  tenure.Scope
	// persona is the principal's persona: the commitments (actions) it
	// extracts are persona-scoped, everything else is global.
	persona string
	msgs    map[string]*tenure.Message
	// items are the thread's state objects by uid, updated as the run
	// writes, so that later candidates see earlier ones.
	items map[string]*stateEntry
	order []string
}

type stateEntry struct {
	obj tenure.Object
	vec []float32
	// slot is the item's analysis, read when a candidate of its type is
	// first compared with it, and kept for the run.
	slot *slot.Item
}

// slotItem returns the entry's analysis, reading it on first use.
func (ent *stateEntry) slotItem() *slot.Item {
	if ent.slot == nil {
		ent.slot = slot.NewItem(ent.obj.StateItem)
	}
	return ent.slot
}

type stateCandidate struct {
	item       tenure.StateItem
	vec        []float32
	userRef    string
	supersedes string
	// context is the text of the messages the item cites, read for cues.
	context string
}

// prepare validates refs, applies the candidate cap, fills the subject and
// value of items that have neither from their text, and embeds the
// candidates and existing items when an embedder is configured.
func (r *stateRun) prepare(ctx context.Context, cands []extract.Candidate, existing []tenure.Object) ([]stateCandidate, error) {
	var out []stateCandidate
	for i, c := range cands {
		if i >= r.opt.MaxCandidates {
			r.drop("over_cap")
			continue
		}
		it := c.Item
		it.Refs = slices.DeleteFunc(slices.Clone(it.Refs), func(id string) bool { return r.msgs[id] == nil })
		if len(it.Refs) == 0 {
			r.drop("no_valid_refs")
			continue
		}
		if it.Subject == "" && it.Value == "" {
			it.Subject, it.Value = slot.Parse(it.Type, it.Text)
		}
		it.Coerce()
		if it.Confidence == "" {
			it.Confidence = tenure.ConfidenceMedium
		}
		if err := it.Validate(); err != nil {
			r.drop("invalid")
			continue
		}
		it.ThreadID = r.thread
		sc := stateCandidate{item: it, supersedes: c.Supersedes}
		var said []string
		for _, id := range it.Refs {
			m := r.msgs[id]
			if m.Role == "user" && sc.userRef == "" {
				sc.userRef = id
			}
			said = append(said, m.Content)
		}
		sc.context = strings.Join(said, "\n")
		out = append(out, sc)
	}
	r.items = map[string]*stateEntry{}
	for _, o := range existing {
		r.items[o.StateItem.UID] = &stateEntry{obj: o}
		r.order = append(r.order, o.StateItem.UID)
	}
	if r.opt.Embedder == nil {
		return out, nil
	}
	texts := make([]string, 0, len(out)+len(existing))
	for _, c := range out {
		texts = append(texts, c.item.Text)
	}
	for _, o := range existing {
		texts = append(texts, o.StateItem.Text)
	}
	vecs, err := r.opt.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed state items: %w", err)
	}
	if len(vecs) != len(texts) {
		return nil, tenure.Errorf(tenure.CodeInternal, "", "embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	for i := range out {
		out[i].vec = vecs[i]
	}
	for i, o := range existing {
		r.items[o.StateItem.UID].vec = vecs[len(out)+i]
	}
	return out, nil
}

func (r *stateRun) drop(reason string) {
	r.res.ItemsDropped++
	addDrop(r.res, reason, 1)
}

// newest is the creation time of the newest message among refs.
func (r *stateRun) newest(refs []string) time.Time {
	var t time.Time
	for _, id := range refs {
		if m := r.msgs[id]; m != nil && m.CreatedAt.After(t) {
			t = m.CreatedAt
		}
	}
	return t
}

// apply reconciles one candidate and writes the outcome.
func (r *stateRun) apply(ctx context.Context, w *writer, c stateCandidate) error {
	matches := make([]reconcile.StateMatch, 0, len(r.order))
	for _, uid := range r.order {
		ent := r.items[uid]
		m := reconcile.StateMatch{Item: ent.obj.StateItem}
		if it := ent.obj.StateItem; it.Type == c.item.Type && it.Status != "superseded" {
			m.Slot = ent.slotItem()
		}
		if c.vec != nil && ent.vec != nil {
			m.Cosine, m.Embedded = float64(retrieve.Cosine(c.vec, ent.vec)), true
		}
		matches = append(matches, m)
	}
	d := reconcile.DecideState(r.opt.Thresholds, reconcile.StateCandidate{Item: &c.item, UserRef: c.userRef,
		Supersedes: c.supersedes, Context: c.context}, matches)
	r.e.opt.Logger.Debug("state.reconcile", "thread", r.thread, "uid", c.item.UID, "action", d.Action, "reason", d.Reason)
	newest := r.newest(c.item.Refs)
	switch d.Action {
	case reconcile.StateSkip:
		r.drop("superseded_duplicate")
		return nil
	case reconcile.StateMerge:
		merged := reconcile.MergeState(d.Target, &c.item, newest)
		r.res.ItemsMerged++
		return r.update(ctx, w, merged)
	case reconcile.StateSupersede:
		old := *d.Target
		old.Status = "superseded"
		old.ReplacedBy = c.item.UID
		old.SupersessionEvidence = d.Evidence
		old.Conflict = false
		r.res.ItemsSuperseded++
		if err := r.update(ctx, w, old); err != nil {
			return err
		}
		c.item.Conflict = false
		if d.Refines() {
			c.item = reconcile.Refine(&old, &c.item)
		}
	case reconcile.StateConflict:
		old := *d.Target
		old.Conflict = true
		r.res.ItemsConflicted++
		if err := r.update(ctx, w, old); err != nil {
			return err
		}
		c.item.Conflict = true
	}
	now := w.clk.next(r.e.now())
	c.item.CreatedAt, c.item.LastSeenAt = now, newest
	r.res.ItemsInserted++
	return r.insert(ctx, w, c)
}

// stateObject is the object a new state item rides on.
func (r *stateRun) stateObject(it tenure.StateItem) tenure.Object {
	persona := ""
	if it.Type == tenure.StateAction {
		persona = r.persona // a commitment is made to the persona
	}
	return tenure.Object{
		PersonaID: persona,
		Key:       StateKey(r.thread, it.UID),
		Content:   it.Text,
		Source:    "extraction",
		UserID:    r.scope.UserID,
		ProjectID: r.projectOf(it.Refs),
		ValidFrom: it.LastSeenAt,
		StateItem: &it,
	}
}

func (r *stateRun) insert(ctx context.Context, w *writer, c stateCandidate) error {
	if c.item.Source == "" {
		c.item.Source = "extraction"
	}
	wr, err := w.put(ctx, r.stateObject(c.item))
	if err != nil {
		return fmt.Errorf("insert state item %s: %w", c.item.UID, err)
	}
	r.items[c.item.UID] = &stateEntry{obj: wr.Object, vec: c.vec}
	r.order = append(r.order, c.item.UID)
	return nil
}

// update writes a new version of an existing item's object.
func (r *stateRun) update(ctx context.Context, w *writer, it tenure.StateItem) error {
	ent := r.items[it.UID]
	o := ent.obj.Clone()
	o.StateItem = &it
	wr, err := w.put(ctx, o)
	if err != nil {
		return fmt.Errorf("update state item %s: %w", it.UID, err)
	}
	ent.obj, ent.slot = wr.Object, nil
	return nil
}

// writeFacts stores profile, people and organisation facts as memories
// (extract.Fact.Memory), keyed by their memory key, so that a later
// statement of the same attribute updates the memory through ordinary
// reconciliation and a repeated one confirms it (multi-valued attributes
// are keyed by value). The extraction's confidence becomes the object's
// confidence score.
func (r *stateRun) writeFacts(ctx context.Context, w *writer, facts []extract.Fact) error {
	for _, f := range facts {
		f.Refs = slices.DeleteFunc(slices.Clone(f.Refs), func(id string) bool { return r.msgs[id] == nil })
		if len(f.Refs) == 0 || f.Subject == "" || f.Attribute == "" || f.Text == "" || tenure.EntitySlug(f.Subject) == "" {
			r.drop("invalid_fact")
			continue
		}
		valid, precision := r.newest(f.Refs), tenure.PrecisionExact
		if f.ValidFrom != nil {
			valid, precision = *f.ValidFrom, f.ValidPrecision
		}
		o := tenure.Object{
			Content:         f.Text,
			Source:          "extraction",
			UserID:          r.scope.UserID,
			ProjectID:       r.scope.ProjectID,
			ValidFrom:       valid,
			ValidPrecision:  precision,
			Memory:          f.Memory(),
			ConfidenceScore: tenure.Ptr(extract.ConfidenceScore(f.Confidence)),
		}
		if f.Kind == extract.FactProfile && extract.MultiValued(f.Attribute) {
			o.ObjectType = tenure.TypePreference
		}
		if !extract.MultiValued(f.Attribute) {
			// One value at a time: a claim about the same resolved entity's
			// attribute under another key ("Dr. Lena Ortiz" and "Lena
			// Ortiz") competes with it.
			o.Attribute = tenure.EntitySlug(f.Attribute)
		}
		if _, err := w.put(ctx, o); err != nil {
			if tenure.ErrorCode(err) == tenure.CodeInvalid {
				r.drop("invalid_fact")
				continue
			}
			return fmt.Errorf("write fact %q: %w", FactKey(f), err)
		}
		r.res.FactsWritten++
	}
	return nil
}

// resolveSpeakers resolves the speakers of a batch's messages as people
// in the registry of the digest's user (entity resolution's mentions are
// facts, state items' entities and speakers).
func (r *stateRun) resolveSpeakers(ctx context.Context, w *writer, msgs []tenure.Message) error {
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.Speaker == "" || seen[m.Speaker] {
			continue
		}
		seen[m.Speaker] = true
		mention, err := entity.NewMention("speaker", entity.Person, m.Speaker)
		if err != nil {
			continue
		}
		w.now = w.clk.next(r.e.opt.Now())
		if _, err := w.resolve(ctx, w.p.TenantID, r.scope.UserID, mention); err != nil {
			return fmt.Errorf("resolve speaker %q: %w", m.Speaker, err)
		}
	}
	return nil
}

// FactKey is the key a fact is filed under: its memory key
// (profile|person|caroline|fact:lives_in; see extract.Fact.Memory).
func FactKey(f extract.Fact) string {
	o := tenure.Object{Memory: f.Memory()}
	o.ApplyMemoryDefaults()
	return o.Key
}

// ExtractAll runs ExtractState until the thread has no new messages (or
// only a batch without a user message is left) and adds up the runs.
func (e *Engine) ExtractAll(ctx context.Context, p tenure.Principal, thread string, x extract.Extractor) (tenure.ExtractionResult, error) {
	var total tenure.ExtractionResult
	for {
		r, err := e.ExtractState(ctx, p, thread, x)
		total.Add(r)
		if err != nil || r.Watermark == nil {
			return total, err
		}
	}
}

// projectOf is the project a new state item belongs to: the digest's own
// project, or, for a digest of the whole thread, the project all its
// source messages name (none when they differ), so that a project's
// decisions and constraints cross threads within the project only.
func (r *stateRun) projectOf(refs []string) string {
	if r.scope.ProjectID != "" {
		return r.scope.ProjectID
	}
	project, seen := "", false
	for _, id := range refs {
		m := r.msgs[id]
		if m == nil {
			continue
		}
		if seen && m.ProjectID != project {
			return ""
		}
		project, seen = m.ProjectID, true
	}
	return project
}
