package tenure_test

import (
	"testing"

	"github.com/tenure-dev/tenure"
)

func TestEntitySlug(t *testing.T) {
	for in, want := range map[string]string{
		"Sam's sister": "sams_sister", "Acme Corp.": "acme_corp", "Austin, Texas": "austin_texas",
		"dashboard-redesign": "dashboard_redesign", "  John   Doe ": "john_doe", "José": "josé", "sam_s_sister": "sam_s_sister",
	} {
		if got := tenure.EntitySlug(in); got != want {
			t.Errorf("EntitySlug(%q) = %q, want %q", in, got, want)
		}
	}
	if got := tenure.NormalizeEntityRef("Sam's Sister"); got != "person:sams_sister" {
		t.Errorf("NormalizeEntityRef = %q", got)
	}
}

func TestEffectiveImportance(t *testing.T) {
	for _, tc := range []struct {
		name                string
		set                 *int
		pinned              bool
		confirmations, uses int
		want                int
	}{
		{"Default", nil, false, 0, 0, 1},
		{"RisesAtThree", nil, false, 3, 0, 2},
		{"UsesCount", nil, false, 2, 10, 2},
		{"TrivialRisesTwice", tenure.Ptr(0), false, 10, 0, 2},
		{"NeverToCoreByUse", nil, false, 100, 1000, 2},
		{"CoreStays", tenure.Ptr(3), false, 0, 0, 3},
		{"Pinned", tenure.Ptr(0), true, 0, 0, 3},
		{"TrivialOnce", tenure.Ptr(0), false, 3, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tenure.Memory{Importance: tc.set, Pinned: tc.pinned, Confirmations: tc.confirmations, Uses: tc.uses}
			if got := m.EffectiveImportance(); got != tc.want {
				t.Errorf("EffectiveImportance = %d, want %d", got, tc.want)
			}
		})
	}
}
