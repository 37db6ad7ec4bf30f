package temporal_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/temporal"
)

// Reference days of the tests.
var (
	monday   = ref("2023-05-08") // the reference of most cases
	saturday = ref("2023-05-13")
	sunday   = ref("2023-05-14")
	newYear  = ref("2023-01-01") // a Sunday
	leapDay  = ref("2024-03-01") // a Friday after 29 February
)

// ref is a reference time in the afternoon of the date s, so that tests
// see the time of day dropped.
func ref(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d.Add(15*time.Hour + 4*time.Minute)
}

// res is a resolved date written compactly for tables.
type res struct {
	Expr, Date, Gran string
}

// resolve runs Resolve and converts the result to res, checking that each
// date is a midnight in UTC on the way.
func resolve(t *testing.T, text string, at time.Time) []res {
	t.Helper()
	var out []res
	for _, d := range temporal.New().Resolve(text, at) {
		if d.Date.Location() != time.UTC || !d.Date.Equal(d.Date.Truncate(24*time.Hour)) {
			t.Errorf("Resolve(%q): date %v of %q is not 00:00 UTC", text, d.Date, d.Expr)
		}
		out = append(out, res{d.Expr, d.Date.Format(time.DateOnly), d.Granularity})
	}
	return out
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name string
		ref  time.Time
		text string
		want []res
	}{
		// Days relative to the reference.
		{"Today", monday, "I'm tired today.", []res{{"today", "2023-05-08", "day"}}},
		{"Tonight", monday, "Tonight we eat out", []res{{"Tonight", "2023-05-08", "day"}}},
		{"ThisMorning", monday, "ran this morning", []res{{"this morning", "2023-05-08", "day"}}},
		{"ThisAfternoon", monday, "THIS AFTERNOON", []res{{"THIS AFTERNOON", "2023-05-08", "day"}}},
		{"ThisEvening", monday, "this  evening", []res{{"this  evening", "2023-05-08", "day"}}},
		{"Yesterday", monday, "yesterday's game", []res{{"yesterday", "2023-05-07", "day"}}},
		{"LastNight", monday, "Last night was fun", []res{{"Last night", "2023-05-07", "day"}}},
		{"Tomorrow", monday, "see you tomorrow!", []res{{"tomorrow", "2023-05-09", "day"}}},
		{"DayBeforeYesterday", monday, "the day before yesterday", []res{{"the day before yesterday", "2023-05-06", "day"}}},
		{"DayBeforeYesterdayNoThe", monday, "day before yesterday", []res{{"day before yesterday", "2023-05-06", "day"}}},
		{"DayAfterTomorrow", monday, "the day after tomorrow", []res{{"the day after tomorrow", "2023-05-10", "day"}}},

		// Counts of days ago.
		{"DigitsDaysAgo", monday, "3 days ago", []res{{"3 days ago", "2023-05-05", "day"}}},
		{"WordDaysAgo", monday, "ten days ago", []res{{"ten days ago", "2023-04-28", "day"}}},
		{"OneDayAgo", monday, "one day ago", []res{{"one day ago", "2023-05-07", "day"}}},
		{"ADayAgo", monday, "a day ago", []res{{"a day ago", "2023-05-07", "day"}}},
		{"CoupleOfDaysAgo", monday, "a couple of days ago", []res{{"a couple of days ago", "2023-05-06", "day"}}},
		{"CoupleDaysAgo", monday, "a couple days ago", []res{{"a couple days ago", "2023-05-06", "day"}}},
		{"FewDaysAgo", monday, "A few days ago", []res{{"A few days ago", "2023-05-05", "day"}}},

		// Weekdays.
		{"LastSaturday", monday, "last Saturday", []res{{"last Saturday", "2023-05-06", "day"}}},
		{"LastMondayOnMonday", monday, "last Monday", []res{{"last Monday", "2023-05-01", "day"}}},
		{"LastSunday", monday, "last sunday", []res{{"last sunday", "2023-05-07", "day"}}},
		{"ThisPastFriday", monday, "this past Friday", []res{{"this past Friday", "2023-05-05", "day"}}},
		{"OnFriday", monday, "I went there on Friday", []res{{"on Friday", "2023-05-05", "day"}}},
		{"BareTuesday", monday, "Tuesday was rough", []res{{"Tuesday", "2023-05-02", "day"}}},
		{"BareSameWeekday", monday, "Monday blues", []res{{"Monday", "2023-05-08", "day"}}},
		{"NextTuesday", monday, "next Tuesday", []res{{"next Tuesday", "2023-05-09", "day"}}},
		{"NextMondayOnMonday", monday, "next Monday", []res{{"next Monday", "2023-05-15", "day"}}},
		{"ThisMondayOnMonday", monday, "this Monday", []res{{"this Monday", "2023-05-08", "day"}}},
		{"ThisWednesday", monday, "this Wednesday", []res{{"this Wednesday", "2023-05-10", "day"}}},
		{"ThisSunday", monday, "this Sunday", []res{{"this Sunday", "2023-05-14", "day"}}},

		// Weeks, dated by their Monday.
		{"LastWeek", monday, "last week", []res{{"last week", "2023-05-01", "week"}}},
		{"ThisWeek", monday, "this week", []res{{"this week", "2023-05-08", "week"}}},
		{"NextWeek", monday, "next week", []res{{"next week", "2023-05-15", "week"}}},
		{"WeeksAgo", monday, "2 weeks ago", []res{{"2 weeks ago", "2023-04-24", "week"}}},
		{"AWeekAgo", monday, "a week ago", []res{{"a week ago", "2023-05-01", "week"}}},
		{"CoupleOfWeeksAgo", monday, "a couple of weeks ago", []res{{"a couple of weeks ago", "2023-04-24", "week"}}},
		{"FewWeeksAgo", monday, "a few weeks ago", []res{{"a few weeks ago", "2023-04-17", "week"}}},

		// Months, dated by their first day.
		{"LastMonth", monday, "last month", []res{{"last month", "2023-04-01", "month"}}},
		{"ThisMonth", monday, "this month", []res{{"this month", "2023-05-01", "month"}}},
		{"NextMonth", monday, "next month", []res{{"next month", "2023-06-01", "month"}}},
		{"MonthsAgo", monday, "six months ago", []res{{"six months ago", "2022-11-01", "month"}}},
		{"AMonthAgo", monday, "a month ago", []res{{"a month ago", "2023-04-01", "month"}}},
		{"LastSameMonthName", monday, "last May", []res{{"last May", "2022-05-01", "month"}}},
		{"LastEarlierMonthName", monday, "last April", []res{{"last April", "2023-04-01", "month"}}},
		{"LastLaterMonthName", monday, "last june", []res{{"last june", "2022-06-01", "month"}}},

		// Years, dated by 1 January.
		{"LastYear", monday, "last year", []res{{"last year", "2022-01-01", "year"}}},
		{"ThisYear", monday, "this year", []res{{"this year", "2023-01-01", "year"}}},
		{"NextYear", monday, "next year", []res{{"next year", "2024-01-01", "year"}}},
		{"YearsAgo", monday, "5 years ago", []res{{"5 years ago", "2018-01-01", "year"}}},
		{"AYearAgo", monday, "a year ago", []res{{"a year ago", "2022-01-01", "year"}}},

		// Weekends, dated by their Saturday.
		{"LastWeekend", monday, "last weekend", []res{{"last weekend", "2023-05-06", "day"}}},
		{"ThisPastWeekend", monday, "this past weekend", []res{{"this past weekend", "2023-05-06", "day"}}},
		{"ThisWeekend", monday, "this weekend", []res{{"this weekend", "2023-05-13", "day"}}},
		{"NextWeekend", monday, "next weekend", []res{{"next weekend", "2023-05-20", "day"}}},

		// A Saturday and a Sunday reference: the weekend they are in is
		// "this weekend", never "last weekend".
		{"SaturdayLastWeekend", saturday, "last weekend", []res{{"last weekend", "2023-05-06", "day"}}},
		{"SundayLastWeekend", sunday, "last weekend", []res{{"last weekend", "2023-05-06", "day"}}},
		{"SundayThisWeekend", sunday, "this weekend", []res{{"this weekend", "2023-05-13", "day"}}},
		{"SundayNextWeekend", sunday, "next weekend", []res{{"next weekend", "2023-05-20", "day"}}},
		{"SundayLastSunday", sunday, "last Sunday", []res{{"last Sunday", "2023-05-07", "day"}}},
		{"SundayBareSunday", sunday, "on Sunday", []res{{"on Sunday", "2023-05-14", "day"}}},
		{"SundayLastSaturday", sunday, "last Saturday", []res{{"last Saturday", "2023-05-13", "day"}}},
		// "This <weekday>" is the coming one unless the clause tells of
		// the past.
		{"SundayThisMonday", sunday, "this Monday", []res{{"this Monday", "2023-05-15", "day"}}},
		{"SundayThisMondayPast", sunday, "this Monday was hard", []res{{"this Monday", "2023-05-08", "day"}}},
		{"SundayNextMonday", sunday, "next Monday", []res{{"next Monday", "2023-05-15", "day"}}},
		{"SundayThisWeek", sunday, "this week", []res{{"this week", "2023-05-08", "week"}}},
		{"SundayLastWeek", sunday, "last week", []res{{"last week", "2023-05-01", "week"}}},

		// Year boundary: 1 January 2023 is a Sunday.
		{"NewYearYesterday", newYear, "yesterday", []res{{"yesterday", "2022-12-31", "day"}}},
		{"NewYearLastMonth", newYear, "last month", []res{{"last month", "2022-12-01", "month"}}},
		{"NewYearLastYear", newYear, "last year", []res{{"last year", "2022-01-01", "year"}}},
		{"NewYearLastWeek", newYear, "last week", []res{{"last week", "2022-12-19", "week"}}},
		{"NewYearThisWeek", newYear, "this week", []res{{"this week", "2022-12-26", "week"}}},
		{"NewYearLastDecember", newYear, "last December", []res{{"last December", "2022-12-01", "month"}}},
		{"NewYearLastJanuary", newYear, "last January", []res{{"last January", "2022-01-01", "month"}}},
		{"NewYearNextMonth", newYear, "next month", []res{{"next month", "2023-02-01", "month"}}},

		// Month boundary in a leap year: 1 March 2024 is a Friday.
		{"LeapYesterday", leapDay, "yesterday", []res{{"yesterday", "2024-02-29", "day"}}},
		{"LeapLastThursday", leapDay, "last Thursday", []res{{"last Thursday", "2024-02-29", "day"}}},
		{"LeapAMonthAgo", leapDay, "a month ago", []res{{"a month ago", "2024-02-01", "month"}}},
		{"LeapAYearAgo", leapDay, "a year ago", []res{{"a year ago", "2023-01-01", "year"}}},
		{"LeapLastFebruary", leapDay, "last February", []res{{"last February", "2024-02-01", "month"}}},
		{"LeapLastMarch", leapDay, "last March", []res{{"last March", "2023-03-01", "month"}}},
		{"LeapThirtyDaysAgo", leapDay, "30 days ago", []res{{"30 days ago", "2024-01-31", "day"}}},

		// Before the Unix epoch: 31 December 1969 is a Wednesday.
		{"Pre1970Tomorrow", ref("1969-12-31"), "tomorrow", []res{{"tomorrow", "1970-01-01", "day"}}},
		{"Pre1970LastWeek", ref("1969-12-31"), "last week", []res{{"last week", "1969-12-22", "week"}}},

		// Several expressions, in order of appearance.
		{"Several", monday,
			"Yesterday I went hiking, and last Saturday we had a picnic. Next week I'm off; 2 years ago I wasn't.",
			[]res{
				{"Yesterday", "2023-05-07", "day"},
				{"last Saturday", "2023-05-06", "day"},
				{"Next week", "2023-05-15", "week"},
				{"2 years ago", "2021-01-01", "year"},
			}},
		{"DuplicatesDropped", monday, "yesterday, YESTERDAY and on Sunday: yesterday",
			[]res{{"yesterday", "2023-05-07", "day"}}},
		{"SameDateOtherGranularity", monday, "today, this week",
			[]res{{"today", "2023-05-08", "day"}, {"this week", "2023-05-08", "week"}}},
		{"LongestPhraseWins", monday, "the day before yesterday and yesterday",
			[]res{{"the day before yesterday", "2023-05-06", "day"}, {"yesterday", "2023-05-07", "day"}}},
		{"AdjacentPhrases", monday, "last week last month last year",
			[]res{{"last week", "2023-05-01", "week"}, {"last month", "2023-04-01", "month"}, {"last year", "2022-01-01", "year"}}},
		{"NewlineBetweenWords", monday, "last\nweek", []res{{"last\nweek", "2023-05-01", "week"}}},
		{"NarrativeSkippedRestFound", monday, "the last week of June, and yesterday",
			[]res{{"yesterday", "2023-05-07", "day"}}},

		// Invalid UTF-8 separates words like punctuation.
		{"InvalidUTF8Around", monday, "\xffyesterday\xfe", []res{{"yesterday", "2023-05-07", "day"}}},
		{"UnicodeNeighbours", monday, "été: yesterday — déjà", []res{{"yesterday", "2023-05-07", "day"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, resolve(t, tc.text, tc.ref)); diff != "" {
				t.Errorf("Resolve(%q, %s) mismatch (-want +got):\n%s", tc.text, tc.ref.Format(time.DateOnly), diff)
			}
		})
	}
}

// TestResolveNone covers texts that have temporal-looking words but no
// relative expression.
func TestResolveNone(t *testing.T) {
	for _, text := range []string{
		"",
		"yesterdays",
		"Saturdays are fun",
		"I came last",
		"last",
		"weekly meetings and monthly reviews",
		"a day at the beach",
		"todays todayé _today today_ tomorrows nottoday",
		"lastweek nextmonth thisyear",
		"last. Week two",
		"last, year",
		"At last may the best team win",
		"every Monday I swim; each Friday I rest",
		"the last week of June",
		"the next day we left",
		"the last Friday of the month",
		"the last day of school",
		"next days",
		"days ago",
		"several days ago",
		"twenty two days ago",
		"twenty-two weeks ago",
		"1.5 weeks ago",
		"1,000 years ago",
		"12345 days ago",
		"in May 2023 and on 7 May 2023",
		"Mondayitis",
		"agos and this",
		"\xff\xfe\xfd",
		"yes\xffterday",
		"last\xffweek",
	} {
		t.Run(text, func(t *testing.T) {
			if got := temporal.New().Resolve(text, monday); got != nil {
				t.Errorf("Resolve(%q) = %+v, want nil", text, got)
			}
		})
	}
}

// TestResolveRefLocation checks that the reference's calendar date is taken
// in its own location: 23:30 on 8 May in UTC-7 is already 9 May in UTC.
func TestResolveRefLocation(t *testing.T) {
	at := time.Date(2023, time.May, 8, 23, 30, 0, 0, time.FixedZone("PDT", -7*3600))
	want := []res{{"today", "2023-05-08", "day"}}
	if diff := cmp.Diff(want, resolve(t, "today", at)); diff != "" {
		t.Errorf("Resolve mismatch (-want +got):\n%s", diff)
	}
}

// TestResolveHuge checks that a large text with many distinct expressions,
// each repeated, resolves every one exactly once and in order.
func TestResolveHuge(t *testing.T) {
	var b strings.Builder
	const n = 2000
	for range 3 {
		for i := range n {
			b.WriteString(strconv.Itoa(i))
			b.WriteString(" days ago. ")
		}
	}
	got := temporal.New().Resolve(b.String(), monday)
	if len(got) != n {
		t.Fatalf("got %d dates, want %d", len(got), n)
	}
	for i, d := range got {
		if want := monday.Truncate(24*time.Hour).AddDate(0, 0, -i); !d.Date.Equal(want) {
			t.Fatalf("date %d = %v, want %v", i, d.Date, want)
		}
	}
}

// TestResolveZeroValue checks that the zero Resolver works like New's.
func TestResolveZeroValue(t *testing.T) {
	var r temporal.Resolver
	got := r.Resolve("yesterday", monday)
	want := []tenure.ResolvedDate{{Expr: "yesterday", Date: time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC), Granularity: "day"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Resolve mismatch (-want +got):\n%s", diff)
	}
}
