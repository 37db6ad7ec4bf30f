package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/summarize"
)

// SpineKey is where a user's summary spine is filed, scoped to the user
// and to no persona: every persona reads it. Each regeneration is a new
// version of it.
const SpineKey = "summary/spine"

// SpineEvery is how many messages (of every persona and thread of the
// user) pass between spine versions.
const SpineEvery = 20

// SpineValue is the stored value of a spine version.
type SpineValue struct {
	// Version counts the spine's regenerations from 1.
	Version int `json:"version"`
	// MessageCount is how many messages arrived since the previous
	// version; TotalMessages how many the user had when it was written.
	MessageCount  int `json:"message_count"`
	TotalMessages int `json:"total_messages"`
	summarize.Spine
}

// UpdateSpine writes a new version of the principal's user's summary
// spine with w when SpineEvery messages arrived since the last one (or
// there is none and the user has that many), or when force is set. It
// reads only what every persona may read (memories are global; a
// persona's commitments and summaries stay out of the spine) and returns
// the version written, or nil when none was due. Errors: CodeInvalid, and
// w's.
func (e *Engine) UpdateSpine(ctx context.Context, p tenure.Principal, w summarize.SpineWriter, force bool) (*tenure.Object, error) {
	p, sc, _, err := e.readPoint(p, tenure.Read{})
	if err != nil {
		return nil, fmt.Errorf("summary spine: %w", err)
	}
	p.PersonaID = "" // the spine is global
	states, err := e.b.SessionStates(ctx, p.TenantID, sc.UserID, nil)
	if err != nil {
		return nil, wrap("summary spine", err)
	}
	total := 0
	for _, st := range states {
		total += st.MessageCount
	}
	var prev SpineValue
	cur, err := e.CurrentValue(ctx, p, SpineKey, tenure.Read{})
	switch {
	case err == nil:
		if err := json.Unmarshal(cur.Value, &prev); err != nil {
			return nil, fmt.Errorf("summary spine: decode version: %w", err)
		}
	case tenure.ErrorCode(err) != tenure.CodeNotFound:
		return nil, err
	}
	if !force && total-prev.TotalMessages < SpineEvery {
		return nil, nil
	}
	notes, err := e.spineNotes(ctx, p, sc)
	if err != nil {
		return nil, err
	}
	sp, err := w.Spine(ctx, summarize.SpineInput{Prev: prev.Spine, Notes: notes})
	if err != nil {
		return nil, fmt.Errorf("summary spine: %w", err)
	}
	sp.Clamp()
	val, err := json.Marshal(SpineValue{Version: prev.Version + 1, MessageCount: total - prev.TotalMessages, TotalMessages: total, Spine: sp})
	if err != nil {
		return nil, err
	}
	content := sp.Render()
	if content == "" {
		content = "(nothing known yet)"
	}
	res, err := e.Put(ctx, p, tenure.Object{Key: SpineKey, Value: val, Content: content, Source: "summary", UserID: sc.UserID})
	if err != nil {
		return nil, fmt.Errorf("summary spine: %w", err)
	}
	return &res.Object, nil
}

// spineNotes files the user's current memories by spine section, newest
// first: facts about the user (PROFILE), decisions and constraints
// (PROJECTS), facts about other people (PEOPLE), and open questions,
// actions and risks and the open loops of session summaries (OPEN_LOOPS).
func (e *Engine) spineNotes(ctx context.Context, p tenure.Principal, sc tenure.Scope) (summarize.Spine, error) {
	var n summarize.Spine
	self := map[string]bool{"person:" + tenure.EntitySlug(sc.UserID): true, "person:user": true, "person:i": true, "person:me": true}
	for _, prefix := range []string{"profile/", "state/", "summary/"} {
		objs, err := e.List(ctx, p, tenure.Filter{KeyPrefix: prefix, Status: tenure.StatusActive, Limit: 10_000})
		if err != nil {
			return n, fmt.Errorf("summary spine: %w", err)
		}
		slices.Reverse(objs)
		for _, o := range objs {
			switch s := o.StateItem; {
			case prefix == "profile/":
				if slices.ContainsFunc(o.CanonicalEntityIDs, func(id string) bool { return strings.HasPrefix(id, "person:") && !self[id] }) {
					n.People = append(n.People, o.Content)
				} else {
					n.Profile = append(n.Profile, o.Content)
				}
			case s != nil && (s.Type == tenure.StateDecision || s.Type == tenure.StateConstraint):
				n.Projects = append(n.Projects, o.Content)
			case s != nil && (s.Status == "open" || s.Status == "blocked" || s.Type == tenure.StateRisk && s.Status == "active"):
				n.OpenLoops = append(n.OpenLoops, o.Content)
			case s == nil && strings.Contains(o.Key, "/session/"):
				var sum summarize.SessionSummary
				if json.Unmarshal(o.Value, &sum) == nil {
					n.OpenLoops = append(n.OpenLoops, sum.OpenLoops...)
				}
			}
		}
	}
	n.Clamp()
	return n, nil
}
