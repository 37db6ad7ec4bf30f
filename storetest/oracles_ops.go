package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

// oracleSide is one world of a pair: its store and a compiler over it.
type oracleSide struct {
	s OracleStore
	c *compile.Compiler
}

// oracleOp is one operation an actor performs, the same in both worlds.
type oracleOp struct {
	kind string // for the report
	desc string // the exact call, for a failure message
	run  func(ctx context.Context, x oracleSide) (any, error)
}

// nextOp draws an operation by a random actor at time now.
func (w *oracleWorld) nextOp(now time.Time) oracleOp {
	rng := w.rng
	p := pick(rng, w.actors)
	who := p.UserID + "/" + p.Authority + "/" + string(p.Clearance)
	op := func(kind string, arg any, run func(ctx context.Context, x oracleSide) (any, error)) oracleOp {
		return oracleOp{kind: kind, desc: fmt.Sprintf("%s by %s %v %+v", kind, who, p.Roles, arg), run: run}
	}
	switch n := rng.IntN(100); {
	case n < 25:
		o := w.randObject(p, now)
		return op("put", o, func(ctx context.Context, x oracleSide) (any, error) { return x.s.Put(ctx, p, o) })
	case n < 29:
		objs := []tenure.Object{w.randObject(p, now), w.randObject(p, now)}
		return op("put_batch", objs, func(ctx context.Context, x oracleSide) (any, error) { return x.s.PutBatch(ctx, p, objs) })
	case n < 38:
		id, r := w.someID(), w.randRead(now)
		return op("get", id, func(ctx context.Context, x oracleSide) (any, error) { return x.s.Get(ctx, p, id, r) })
	case n < 47:
		key, r := w.someKey(), w.randRead(now)
		return op("current_value", key, func(ctx context.Context, x oracleSide) (any, error) { return x.s.CurrentValue(ctx, p, key, r) })
	case n < 56:
		key, s := w.someKey(), w.randScope()
		return op("history", key, func(ctx context.Context, x oracleSide) (any, error) { return x.s.History(ctx, p, key, s) })
	case n < 61:
		f := tenure.Filter{Scope: w.randScope(), KeyPrefix: pick(rng, []string{"", "sec", "state/", "o"})}
		if rng.IntN(2) == 0 {
			f.Status = pick(rng, tenure.Statuses)
		}
		return op("list", f, func(ctx context.Context, x oracleSide) (any, error) { return x.s.List(ctx, p, f) })
	case n < 70:
		msgs := w.randMessages(p, now)
		return op("append_messages", msgs, func(ctx context.Context, x oracleSide) (any, error) { return x.s.AppendMessages(ctx, p, msgs) })
	case n < 76:
		f := tenure.MessageFilter{Scope: w.randScope(), ThreadID: pick(rng, oracleThreads)}
		if rng.IntN(2) == 0 {
			f.AfterID = pick(rng, oracleMsgIDs)
		}
		return op("messages", f, func(ctx context.Context, x oracleSide) (any, error) { return x.s.Messages(ctx, p, f) })
	case n < 79:
		r := tenure.ExpandRequest{UID: w.someUID()}
		if rng.IntN(2) == 0 {
			r.ThreadID = "th1"
		}
		return op("expand", r, func(ctx context.Context, x oracleSide) (any, error) { return x.s.Expand(ctx, p, r) })
	case n < 83:
		open := rng.IntN(2) == 0
		return op("resolutions", open, func(ctx context.Context, x oracleSide) (any, error) { return x.s.Resolutions(ctx, p, open) })
	case n < 88:
		ro := tenure.RetireOptions{Scope: w.randScope(), DryRun: true}
		if rng.IntN(2) == 0 {
			ro.ObjectIDs, ro.DryRun = []string{w.someID()}, rng.IntN(3) > 0
		}
		return op("retire", ro, func(ctx context.Context, x oracleSide) (any, error) { return x.s.Retire(ctx, p, ro) })
	case n < 90:
		return op("end_session", "s1", func(ctx context.Context, x oracleSide) (any, error) { return x.s.EndSession(ctx, p, "s1") })
	case n < 93:
		q := tenure.MessageQuery{Principal: p, Scope: w.randScope(), Text: w.randQuery(), Limit: 1 + rng.IntN(4),
			Neighbors: 1 + rng.IntN(2), WideMatches: rng.IntN(2), Recent: rng.IntN(3)}
		return op("message_candidates", q.Text, func(ctx context.Context, x oracleSide) (any, error) { return x.s.MessageCandidates(ctx, q) })
	case n < 97:
		q := tenure.CandidateQuery{Principal: p, Scope: w.randScope(), Text: w.randQuery(), Limit: 1 + rng.IntN(4)}
		return op("candidates", q.Text, func(ctx context.Context, x oracleSide) (any, error) { return x.s.Candidates(ctx, q) })
	default:
		req := compile.Request{Principal: p, Scope: w.randScope(), Query: w.randQuery(), Budget: 300 + rng.IntN(1200)}
		return op("compile", req.Query, func(ctx context.Context, x oracleSide) (any, error) {
			env, tr, err := x.c.Compile(ctx, req)
			tr.LatencyMS = 0 // timings are not responses to compare
			for i := range tr.Steps {
				tr.Steps[i].Micros = 0
			}
			return struct {
				Envelope compile.Envelope
				Trace    compile.Trace
			}{env, tr}, err
		})
	}
}

// randObject is a claim an actor may try to write: keys, values, ids and
// supersession targets are drawn so that they often meet the hidden
// object's.
func (w *oracleWorld) randObject(p tenure.Principal, now time.Time) tenure.Object {
	rng := w.rng
	o := tenure.Object{Key: pick(rng, oracleKeys), Value: jsonString(w.value())}
	switch rng.IntN(10) {
	case 0:
		o.Key = fmt.Sprintf("k%d", rng.IntN(5))
	case 1:
		o.Key = w.hidden.Key
	}
	if rng.IntN(4) == 0 {
		o.SecurityClassification = pick(rng, tenure.Classifications)
	}
	if rng.IntN(5) == 0 {
		o.PermissionScope.AllowRoles = []string{pick(rng, append(oracleRoles, "staff"))}
	}
	if rng.IntN(5) == 0 {
		o.PermissionScope.DenyRoles = []string{pick(rng, append(oracleRoles, "staff"))}
	}
	if rng.IntN(2) == 0 {
		o.AuthorityLevel = tenure.Ptr(1 + rng.IntN(3))
	}
	if rng.IntN(3) == 0 {
		o.ValidFrom = now.Add(hours(rng.IntN(5) - 2))
	}
	setLayer(&o, rng.IntN(10))
	if rng.IntN(4) == 0 {
		o.UserID = p.UserID
	}
	if rng.IntN(8) == 0 {
		o.ProjectID = "p1"
	}
	if rng.IntN(6) == 0 {
		o.DependsOn = []string{pick(rng, append(slices.Clone(oracleKeys), w.hiddenID))}
	}
	switch rng.IntN(12) {
	case 0:
		o.ObjectID = w.hiddenID
	case 1:
		o.ObjectID, o.Version = w.hiddenID, 1
	case 2, 3:
		if len(w.ids) > 0 {
			o.ObjectID = pick(rng, w.ids)
		}
	}
	switch rng.IntN(10) {
	case 0:
		o.Supersedes = w.hidden.Key
	case 1:
		o.Supersedes = w.hiddenID
	case 2:
		if len(w.ids) > 0 {
			o.Supersedes = pick(rng, w.ids)
		}
	}
	if rng.IntN(2) == 0 {
		// Words the queries draw from, so that matches differ in terms
		// and frequencies and their order depends on the statistics.
		o.Content = w.decoyText()
	}
	if rng.IntN(15) == 0 {
		w.setStateItem(&o, w.value())
	}
	return o
}

// randMessages are one to three messages, often with the hidden message's
// thread, id and content.
func (w *oracleWorld) randMessages(p tenure.Principal, now time.Time) []tenure.Message {
	rng := w.rng
	var msgs []tenure.Message
	for range 1 + rng.IntN(3) {
		m := tenure.Message{ThreadID: pick(rng, oracleThreads), ID: pick(rng, oracleMsgIDs), Role: pick(rng, []string{"user", "assistant"}),
			Content: pick(rng, oracleContents), CreatedAt: now.Add(time.Duration(rng.IntN(3)) * time.Second)}
		if rng.IntN(2) == 0 {
			m.UserID = p.UserID
		}
		if h := w.hiddenMsg; h != nil && rng.IntN(3) == 0 {
			m.ThreadID, m.ID, m.Role, m.Content, m.CreatedAt = h.ThreadID, h.ID, h.Role, h.Content, h.CreatedAt
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func (w *oracleWorld) randScope() tenure.Scope {
	var s tenure.Scope
	if w.rng.IntN(4) == 0 {
		s.ProjectID = "p1"
	}
	if w.rng.IntN(3) == 0 {
		s.SessionID = "s1"
	}
	return s
}

func (w *oracleWorld) randRead(now time.Time) tenure.Read {
	r := tenure.Read{Scope: w.randScope()}
	if w.rng.IntN(5) == 0 {
		r.AsOfValid = tenure.Ptr(now.Add(hours(w.rng.IntN(5) - 3)))
	}
	return r
}

func (w *oracleWorld) randQuery() string {
	words := make([]string, 1+w.rng.IntN(3))
	for i := range words {
		words[i] = pick(w.rng, oracleWords)
	}
	return strings.Join(words, " ")
}

// someID is the hidden object's id, one the actors have seen, or none.
func (w *oracleWorld) someID() string {
	switch n := w.rng.IntN(10); {
	case n < 4:
		return w.hiddenID
	case n < 9 && len(w.ids) > 0:
		return pick(w.rng, w.ids)
	}
	return "no-such-object"
}

func (w *oracleWorld) someKey() string {
	if w.rng.IntN(3) == 0 {
		return w.hidden.Key
	}
	return pick(w.rng, oracleKeys)
}

func (w *oracleWorld) someUID() string {
	switch n := w.rng.IntN(10); {
	case n < 4 && w.hidden.StateItem != nil:
		return w.hidden.StateItem.UID
	case n < 9 && len(w.uids) > 0:
		return pick(w.rng, w.uids)
	}
	return "d_000000000000"
}

// learn records the object ids and state items an actor saw in world A's
// answer, for later operations to name.
func (w *oracleWorld) learn(res any) {
	var objs []tenure.Object
	switch r := res.(type) {
	case tenure.WriteResult:
		objs = append(objs, r.Object)
	case []tenure.WriteResult:
		for _, x := range r {
			objs = append(objs, x.Object)
		}
	case []tenure.Object:
		objs = r
	case tenure.Object:
		objs = append(objs, r)
	}
	for _, o := range objs {
		if o.ObjectID != "" && !slices.Contains(w.ids, o.ObjectID) {
			w.ids = append(w.ids, o.ObjectID)
		}
		if o.StateItem != nil && !slices.Contains(w.uids, o.StateItem.UID) {
			w.uids = append(w.uids, o.StateItem.UID)
		}
	}
}

func hours(n int) time.Duration { return time.Duration(n) * time.Hour }
