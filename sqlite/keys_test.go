package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

func TestKeys(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	s := open(t, filepath.Join(t.TempDir(), "tenure.db"), func() time.Time { return now })
	t.Run("OK", func(t *testing.T) {
		k, secret, err := s.CreateKey(ctx, tenure.APIKey{Name: "ci", Principal: tenure.Principal{TenantID: "acme", UserID: "bob", Authority: "employee"}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(secret, tenure.APIKeyPrefix) || !strings.HasPrefix(k.ID, "key_") || !k.CreatedAt.Equal(now) {
			t.Errorf("created %+v with secret %q", k, secret)
		}
		if k.Principal.Clearance != tenure.Public {
			t.Errorf("principal defaults not filled: %+v", k.Principal)
		}
		got, err := s.KeyByHash(ctx, tenure.HashAPIKey(secret))
		if err != nil || got.ID != k.ID || got.Principal.UserID != "bob" || got.Revoked() {
			t.Fatalf("KeyByHash = %+v, %v", got, err)
		}
		var stored int
		if err := s.DB().QueryRow(`SELECT count(*) FROM api_keys WHERE hash = ? OR principal LIKE ?`, secret, "%"+secret+"%").Scan(&stored); err != nil || stored != 0 {
			t.Errorf("the secret itself is stored (%d rows, %v)", stored, err)
		}
		now = now.Add(time.Hour)
		r, err := s.RevokeKey(ctx, k.ID)
		if err != nil || r.RevokedAt == nil || !r.RevokedAt.Equal(now) {
			t.Fatalf("RevokeKey = %+v, %v", r, err)
		}
		now = now.Add(time.Hour)
		again, err := s.RevokeKey(ctx, k.ID)
		if err != nil || !again.RevokedAt.Equal(*r.RevokedAt) {
			t.Errorf("second revoke moved the revocation: %+v, %v", again, err)
		}
		if got, _ := s.KeyByHash(ctx, tenure.HashAPIKey(secret)); !got.Revoked() {
			t.Errorf("revoked key reads back unrevoked")
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := s.KeyByHash(ctx, tenure.HashAPIKey("tk_nope")); tenure.ErrorCode(err) != tenure.CodeNotFound {
			t.Errorf("unknown hash: %v, want not_found", err)
		}
		if _, err := s.RevokeKey(ctx, "key_nope"); tenure.ErrorCode(err) != tenure.CodeNotFound || tenure.ErrorField(err) != "id" {
			t.Errorf("unknown id: %v, want not_found on id", err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		_, _, err := s.CreateKey(ctx, tenure.APIKey{Principal: tenure.Principal{Authority: "janitor"}})
		if tenure.ErrorCode(err) != tenure.CodeInvalid || tenure.ErrorField(err) != "principal.authority" {
			t.Errorf("bad authority: %v, want invalid principal.authority", err)
		}
	})
	t.Run("List", func(t *testing.T) {
		if _, _, err := s.CreateKey(ctx, tenure.APIKey{Principal: tenure.Principal{TenantID: "other"}}); err != nil {
			t.Fatal(err)
		}
		all, err := s.Keys(ctx, "")
		if err != nil || len(all) < 2 {
			t.Fatalf("Keys(all) = %d keys, %v", len(all), err)
		}
		acme, err := s.Keys(ctx, "acme")
		if err != nil || len(acme) != 1 || acme[0].Principal.TenantID != "acme" {
			t.Errorf("Keys(acme) = %+v, %v", acme, err)
		}
	})
}

// TestCreateFirstKey checks that concurrent first starts create exactly
// one key.
func TestCreateFirstKey(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "tenure.db"), nil)
	var wg sync.WaitGroup
	created := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, secret, ok, err := s.CreateFirstKey(ctx, tenure.APIKey{Name: "admin", Principal: tenure.Principal{UserID: "admin"}})
			if err != nil {
				t.Error(err)
			}
			if ok {
				created <- secret
			}
		}()
	}
	wg.Wait()
	close(created)
	if n := len(created); n != 1 {
		t.Fatalf("%d first keys created, want 1", n)
	}
	if keys, err := s.Keys(ctx, ""); err != nil || len(keys) != 1 {
		t.Errorf("stored %d keys, %v; want 1", len(keys), err)
	}
}
