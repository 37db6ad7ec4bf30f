package temporal_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/temporal"
)

func TestAbsolute(t *testing.T) {
	day := func(expr string, y int, m time.Month, d int) tenure.ResolvedDate {
		return tenure.ResolvedDate{Expr: expr, Date: time.Date(y, m, d, 0, 0, 0, 0, time.UTC), Granularity: temporal.Day}
	}
	month := func(expr string, y int, m time.Month) tenure.ResolvedDate {
		return tenure.ResolvedDate{Expr: expr, Date: time.Date(y, m, 1, 0, 0, 0, 0, time.UTC), Granularity: temporal.Month}
	}
	for _, c := range []struct {
		text string
		want []tenure.ResolvedDate
	}{
		{"What did Maria start, as mentioned on 3 June, 2023?", []tenure.ResolvedDate{day("3 June, 2023", 2023, time.June, 3)}},
		{"the 3rd of June 2023", []tenure.ResolvedDate{day("3rd of June 2023", 2023, time.June, 3)}},
		{"Sept. 14, 2022 and Oct 2 2022", []tenure.ResolvedDate{day("Sept. 14, 2022", 2022, time.September, 14), day("Oct 2 2022", 2022, time.October, 2)}},
		{"Where did Joanna travel to in July 2022?", []tenure.ResolvedDate{month("July 2022", 2022, time.July)}},
		{"between August 11 and August 15 2023", []tenure.ResolvedDate{day("August 15 2023", 2023, time.August, 15)}},
		{"in may, 2023 and MARCH 2024", []tenure.ResolvedDate{month("may, 2023", 2023, time.May), month("MARCH 2024", 2024, time.March)}},
		// In order of appearance, whatever the form.
		{"July 2022, then 3 June 2023", []tenure.ResolvedDate{month("July 2022", 2022, time.July), day("3 June 2023", 2023, time.June, 3)}},
		// No such day: the month is still named.
		{"31 February 2023", []tenure.ResolvedDate{month("February 2023", 2023, time.February)}},
		{"yesterday, in 2023, on day 12 of the marching season", nil},
	} {
		if diff := cmp.Diff(c.want, temporal.Absolute(c.text)); diff != "" {
			t.Errorf("Absolute(%q) (-want +got):\n%s", c.text, diff)
		}
	}
}
