package http_test

import (
	"slices"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/entity"
	tenurehttp "github.com/tenure-dev/tenure/http"
)

// TestClientEntities runs the registry through the Go client: what a
// write resolved, a link and its undo, and errors that keep their code
// and field across the wire.
func TestClientEntities(t *testing.T) {
	e := newEnv(t)
	c := tenurehttp.NewClient(e.url, e.alice, tenurehttp.ClientOptions{})
	for _, o := range []tenure.Object{
		{Key: "a", Content: "Makesh lives in Pune", CanonicalEntityIDs: []string{"person:makesh"}, UserID: "alice"},
		{Key: "b", Content: "Mukesh is a pilot", CanonicalEntityIDs: []string{"person:Mukesh"}, UserID: "alice"},
	} {
		if _, err := c.Put(e.ctx, aliceP, o); err != nil {
			t.Fatal(err)
		}
	}
	pending, err := c.Entities(e.ctx, aliceP, entity.Query{Status: entity.StatusPending})
	if err != nil || len(pending) != 1 || pending[0].ID != "person:mukesh" {
		t.Fatalf("pending = %+v, %v", pending, err)
	}
	d, err := c.ResolveMention(e.ctx, aliceP, "person:Makesh", "alice")
	if err != nil || d.Action != entity.Link || d.EntityID != "person:makesh" {
		t.Errorf("resolve = %+v, %v", d, err)
	}
	ch, err := c.SettleEntity(e.ctx, aliceP, entity.SettleRequest{ID: "person:mukesh", Into: "person:makesh"})
	if err != nil || ch.Op.Kind != entity.OpLink {
		t.Fatalf("settle = %+v, %v", ch, err)
	}
	v, err := c.Entity(e.ctx, aliceP, "person:makesh", "")
	if err != nil || !slices.Contains(v.Entity.Aliases, "person:mukesh") || len(v.Versions) != 2 {
		t.Errorf("show = %+v, %v", v, err)
	}
	if _, err := c.UndoEntityOp(e.ctx, aliceP, ch.Op.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UndoEntityOp(e.ctx, aliceP, ch.Op.ID); tenure.ErrorCode(err) != tenure.CodeConflict || tenure.ErrorField(err) != "op_id" {
		t.Errorf("undo twice: %v", err)
	}
	if _, err := c.SplitEntity(e.ctx, aliceP, entity.SplitRequest{ID: "person:makesh", Aliases: []string{"person:zed"}}); tenure.ErrorCode(err) != tenure.CodeInvalid || tenure.ErrorField(err) != "aliases" {
		t.Errorf("bad split: %v", err)
	}
	if _, err := c.MergeEntities(e.ctx, aliceP, entity.MergeRequest{From: "person:makesh"}); tenure.ErrorCode(err) != tenure.CodeInvalid || tenure.ErrorField(err) != "into" {
		t.Errorf("merge without into: %v", err)
	}
	// Another tenant's key sees nothing of it.
	bob := tenurehttp.NewClient(e.url, e.bob, tenurehttp.ClientOptions{})
	if _, err := bob.Entity(e.ctx, bobP, "person:makesh", ""); tenure.ErrorCode(err) != tenure.CodeNotFound {
		t.Errorf("bob shows alice's entity: %v", err)
	}
	if es, err := bob.Entities(e.ctx, bobP, entity.Query{}); err != nil || len(es) != 0 {
		t.Errorf("bob lists %+v, %v", es, err)
	}
}
