package temporal_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure/temporal"
)

// Reference days of the direction cases, in 2025.
var (
	mar3  = ref("2025-03-03") // a Monday
	mar5  = ref("2025-03-05") // a Wednesday
	mar8  = ref("2025-03-08") // a Saturday
	mar20 = ref("2025-03-20") // a Thursday
	dec1  = ref("2025-12-01") // a Monday

	// The ends of the calendar every store holds.
	endOfTime   = time.Date(9999, 12, 31, 20, 0, 0, 0, time.UTC)
	startOfTime = time.Date(1, 1, 1, 8, 0, 0, 0, time.UTC)
)

// TestResolveDirection covers dates that lie ahead or behind by their
// context: deadlines and plans resolve forward, reports of the past
// backward, and a bare weekday with no cue keeps the most recent one; and
// dates out of the calendar, which are never listed.
func TestResolveDirection(t *testing.T) {
	for _, tc := range []struct {
		name string
		ref  time.Time
		text string
		want []res
	}{
		// The reports of issue 14.
		{"OK/ByWeekdayMonthDay", mar3, "Marco will set up the ingestion pipeline by Friday March 14.",
			[]res{{"Friday March 14", "2025-03-14", "day"}}},
		{"OK/ByWednesday", mar5, "Can you send me the cost estimate by Wednesday?",
			[]res{{"Wednesday", "2025-03-05", "day"}}},
		{"OK/ByWednesdayFromThursday", ref("2025-03-06"), "Can you send me the cost estimate by Wednesday?",
			[]res{{"Wednesday", "2025-03-12", "day"}}},
		{"OK/WillByFridayOnSaturday", mar8, "Marco will set up the pipeline by Friday.",
			[]res{{"Friday", "2025-03-14", "day"}}},

		// Deadlines and plans: forward.
		{"OK/DueFriday", mar8, "The report is due Friday.", []res{{"Friday", "2025-03-14", "day"}}},
		{"OK/LetsMeetOnWednesday", mar8, "Let's meet on Wednesday to go over it.", []res{{"on Wednesday", "2025-03-12", "day"}}},
		{"OK/GoingToOnTuesday", mar5, "I'm going to the dentist on Tuesday.", []res{{"on Tuesday", "2025-03-11", "day"}}},
		{"OK/ThisFridayOnSaturday", mar8, "Are you coming this Friday?", []res{{"this Friday", "2025-03-14", "day"}}},
		{"OK/ThisComingFriday", mar8, "this coming Friday", []res{{"this coming Friday", "2025-03-14", "day"}}},
		{"OK/NextTuesday", mar3, "See you next Tuesday", []res{{"next Tuesday", "2025-03-04", "day"}}},
		// Weekday abbreviations: the unambiguous ones anywhere, the ones
		// that are also words only capitalised where a date is expected.
		{"OK/ByFri", mar8, "Can you send it by Fri?", []res{{"Fri", "2025-03-14", "day"}}},
		{"OK/NextTues", mar3, "See you next Tues", []res{{"next Tues", "2025-03-04", "day"}}},
		{"OK/OnThursLowerCase", mar3, "standup moved to thurs", []res{{"thurs", "2025-02-27", "day"}}},
		{"OK/ThuMonthDay", mar3, "Call on Thu 6 March.", []res{{"on Thu 6 March", "2025-03-06", "day"}}},
		{"OK/OnSat", mar3, "The party is on Sat.", []res{{"on Sat", "2025-03-08", "day"}}},
		{"OK/ByWed", mar8, "I'll have the draft by Wed.", []res{{"Wed", "2025-03-12", "day"}}},
		{"OK/UntilSun", mar3, "The shop is closed until Sun.", []res{{"Sun", "2025-03-09", "day"}}},
		{"OK/SatIsStillPast", ref("2025-03-10"), "I sat the exam on March 14.", []res{{"on March 14", "2024-03-14", "day"}}},
		{"None/SatDown", mar3, "I sat down with Ann. Sat with her again after lunch.", []res{}},
		{"None/TheSun", mar3, "We sat in the sun on the terrace.", []res{}},
		{"None/WedInJune", mar3, "They will wed soon.", []res{}},
		{"None/MonAsName", mar3, "Mon said hello.", []res{}},
		{"OK/Tomorrow", mar3, "tomorrow works", []res{{"tomorrow", "2025-03-04", "day"}}},
		{"OK/ByMarch14", mar3, "Please get it done by March 14.", []res{{"March 14", "2025-03-14", "day"}}},
		{"OK/ByMarch14NextYear", mar20, "Please get it done by March 14.", []res{{"March 14", "2026-03-14", "day"}}},
		{"OK/OnJan5Ahead", mar3, "I'll call you on Jan 5.", []res{{"on Jan 5", "2026-01-05", "day"}}},
		{"OK/WeekdayCommaMonthDay", mar3, "The launch is Friday, March 14.", []res{{"Friday, March 14", "2025-03-14", "day"}}},
		{"OK/TheOrdinalOfMonth", mar20, "We will launch on the 14th of March.", []res{{"on the 14th of March", "2026-03-14", "day"}}},
		{"OK/AbbreviationWithDot", mar3, "Deadline: Mar. 14th", []res{{"Mar. 14th", "2025-03-14", "day"}}},
		{"OK/DayFirst", mar3, "the due date is 14 March", []res{{"14 March", "2025-03-14", "day"}}},
		{"OK/InTwoWeeks", mar3, "We ship in two weeks.", []res{{"in two weeks", "2025-03-17", "week"}}},
		{"OK/InThreeDays", mar3, "back in 3 days", []res{{"in 3 days", "2025-03-06", "day"}}},
		{"OK/InAMonth", mar3, "I'll know in a month", []res{{"in a month", "2025-04-01", "month"}}},
		{"OK/InAFewWeeks", mar3, "in a few weeks", []res{{"in a few weeks", "2025-03-24", "week"}}},
		{"OK/InAYear", mar3, "We might move in a year", []res{{"in a year", "2026-01-01", "year"}}},
		{"OK/InAMonthAgo", mar3, "I ran in a race in a month ago", []res{{"a month ago", "2025-02-01", "month"}}},
		{"OK/InTwoWeeksAgo", mar3, "we met in two weeks ago", []res{{"two weeks ago", "2025-02-17", "week"}}},
		{"OK/FromNow", mar3, "two weeks from now", []res{{"two weeks from now", "2025-03-17", "week"}}},
		{"OK/DaysFromNow", mar3, "10 days from now", []res{{"10 days from now", "2025-03-13", "day"}}},
		{"OK/PresentSchedule", ref("2025-03-04"), "The store is closed on Monday.", []res{{"on Monday", "2025-03-10", "day"}}},
		{"OK/PresentProgressive", mar8, "We're flying out on Friday.", []res{{"on Friday", "2025-03-14", "day"}}},
		{"OK/WontOnFriday", mar8, "I won't be there on Friday.", []res{{"on Friday", "2025-03-14", "day"}}},
		{"OK/ReportedPlan", mar8, "He said he'd finish it by Friday.", []res{{"Friday", "2025-03-14", "day"}}},
		{"OK/BookedFor", mar8, "I booked a table for Friday.", []res{{"Friday", "2025-03-14", "day"}}},
		{"OK/ExcitedFor", mar8, "I'm so excited for Friday!", []res{{"Friday", "2025-03-14", "day"}}},
		{"OK/GettingMarried", mar8, "We're getting married on Saturday", []res{{"on Saturday", "2025-03-08", "day"}}},
		{"OK/SameDayAhead", mar8, "I'll do it by Saturday", []res{{"Saturday", "2025-03-08", "day"}}},

		// Reports of the past: backward.
		{"OK/OnFridayIWent", mar3, "On Friday I went to the museum.", []res{{"On Friday", "2025-02-28", "day"}}},
		{"OK/WentOnFriday", mar3, "I went to the museum on Friday.", []res{{"on Friday", "2025-02-28", "day"}}},
		{"OK/DidOnSunday", mar3, "Did you watch the game on Sunday?", []res{{"on Sunday", "2025-03-02", "day"}}},
		{"OK/WonOnFriday", mar8, "We won on Friday!", []res{{"on Friday", "2025-03-07", "day"}}},
		{"OK/RegularPastVerb", mar8, "We visited my aunt on Friday.", []res{{"on Friday", "2025-03-07", "day"}}},
		{"OK/ThisMondayWasHard", mar5, "this Monday was hard", []res{{"this Monday", "2025-03-03", "day"}}},
		{"OK/WasMonthDay", ref("2025-03-10"), "My birthday was March 14.", []res{{"March 14", "2024-03-14", "day"}}},
		{"OK/SinceMonthDay", ref("2025-03-10"), "I've been here since March 14", []res{{"March 14", "2024-03-14", "day"}}},
		{"OK/InTwoDaysPast", mar3, "I finished the whole book in two days.", []res{}},
		{"OK/InMonthsPast", mar3, "I lost 10 pounds in 3 months", []res{}},
		{"OK/InDaysPerfect", mar3, "Haven't seen you in a few days!", []res{}},
		{"OK/InDaysPerfectVe", mar3, "We've talked twice in a week", []res{}},
		{"OK/LastSaturday", mar3, "last Saturday", []res{{"last Saturday", "2025-03-01", "day"}}},
		{"OK/Yesterday", mar3, "yesterday", []res{{"yesterday", "2025-03-02", "day"}}},
		{"OK/LastMonth", mar3, "I moved to Denver last month.", []res{{"last month", "2025-02-01", "month"}}},
		{"OK/TwoWeeksAgo", mar3, "two weeks ago", []res{{"two weeks ago", "2025-02-17", "week"}}},

		// The limits docs/dates.md tells of.
		{"OK/FinishedBy", mar8, "I finished it by Friday.", []res{{"Friday", "2025-03-07", "day"}}},
		{"OK/FinishedDue", mar8, "The report I finished is due Friday.", []res{{"Friday", "2025-03-14", "day"}}},
		{"OK/WasGoingTo", mar8, "I was going to call on Friday.", []res{{"on Friday", "2025-03-14", "day"}}},
		{"OK/ReallyExcited", mar8, "we're really excited for Friday", []res{{"Friday", "2025-03-14", "day"}}},

		// Each clause has its own tense.
		{"OK/TwoClauses", mar5, "I went to the store on Friday and will go again on Sunday.",
			[]res{{"on Friday", "2025-02-28", "day"}, {"on Sunday", "2025-03-09", "day"}}},
		{"OK/TwoSentences", mar5, "Friday was great. I'll be back on Friday!",
			[]res{{"Friday", "2025-02-28", "day"}, {"on Friday", "2025-03-07", "day"}}},
		{"OK/CommaSo", ref("2023-05-20"), "I recently had a breakthrough on May 15th, so I want to build on it.",
			[]res{{"on May 15th", "2023-05-15", "day"}}},
		// A clause without a cue takes the sentence's.
		{"OK/SentenceCue", mar5, "We will rent a van and drive up on Saturday.", []res{{"on Saturday", "2025-03-08", "day"}}},

		// No cue: a bare weekday is the most recent one (today's rule), a
		// day of a month the nearest.
		{"OK/BareWeekday", mar5, "Monday blues", []res{{"Monday", "2025-03-03", "day"}}},
		{"OK/MonthDayNearestAhead", mar3, "March 14", []res{{"March 14", "2025-03-14", "day"}}},
		{"OK/MonthDayNearestBehind", mar20, "March 14", []res{{"March 14", "2025-03-14", "day"}}},
		{"OK/MonthDayNearestNextYear", dec1, "January 5", []res{{"January 5", "2026-01-05", "day"}}},
		{"OK/MonthDayNearestLastYear", ref("2025-01-10"), "December 20", []res{{"December 20", "2024-12-20", "day"}}},
		{"OK/OrdinalMonth", mar3, "1st April", []res{{"1st April", "2025-04-01", "day"}}},
		// The weekday picks the year when it can: 14 March is a Friday in
		// 2025, not in 2026.
		{"OK/WeekdayPicksYear", ref("2026-03-20"), "Friday March 14", []res{{"Friday March 14", "2025-03-14", "day"}}},
		{"OK/LeapDay", ref("2025-03-01"), "February 29", []res{{"February 29", "2024-02-29", "day"}}},

		// A day with its year is Absolute's; no such day is no date.
		{"OK/WithYear", mar3, "by March 14, 2025", []res{}},
		{"OK/DayFirstWithYear", mar3, "on 14 March 2025 we met", []res{}},
		{"OK/WeekdayWithYear", mar3, "Friday, March 14, 2025", []res{}},
		{"OK/NoSuchDay", mar3, "by February 30", []res{}},
		// Verbs and numbers that are not dates.
		{"OK/ModalMay", mar3, "you may 2 times", []res{}},
		{"OK/VerbMarch", mar3, "we march 10 miles", []res{}},
		{"OK/CapitalMay", mar3, "Is May 5 free?", []res{{"May 5", "2025-05-05", "day"}}},
		{"OK/NoMonth", mar3, "the 3rd option", []res{}},
		{"OK/InAYearWord", mar3, "in 2023", []res{}},
		{"OK/DecimalDay", mar3, "rated 4.5 March", []res{}},

		// A month named alone after a preposition: ahead or behind as
		// the clause tells, this month either way; no date when nothing
		// tells; a month with a day or a year is another rule's.
		{"OK/ByMonth", mar3, "We need the venue booked by June.", []res{{"June", "2025-06-01", "month"}}},
		{"OK/ByMonthNextYear", mar20, "Let's have the roof fixed by February.", []res{{"February", "2026-02-01", "month"}}},
		{"OK/InMonthPast", mar3, "We flew to Denver in June.", []res{{"June", "2024-06-01", "month"}}},
		{"OK/InMonthPresent", mar3, "Julia's birthday is in June.", []res{{"June", "2025-06-01", "month"}}},
		{"OK/SinceMonth", mar3, "I've been sober since January.", []res{{"January", "2025-01-01", "month"}}},
		{"OK/UntilMonth", mar3, "The shop is closed until April.", []res{{"April", "2025-04-01", "month"}}},
		{"OK/ThisMonthPast", mar20, "It snowed a lot in March.", []res{{"March", "2025-03-01", "month"}}},
		{"None/MonthUndirected", mar3, "Photos from June.", []res{}},
		{"None/MonthAsName", mar3, "I met June at the gym.", []res{}},
		{"None/MonthAsFirstName", mar3, "I'll have it reviewed by June Carter.", []res{}},
		{"None/MayVerb", mar3, "We may go in may if it's warm.", []res{}},
		{"OK/MonthWithYearIsAbsolute", mar3, "We moved in June 2023.", []res{}},
		{"OutOfCalendar/MonthAtTheEnd", endOfTime, "We will move by June.", []res{}},

		// Dates no store holds are not listed, and the text around them
		// still resolves.
		{"OutOfCalendar/YearsAgo", mar3, "The pyramids were built about 6000 years ago.", []res{}},
		{"OutOfCalendar/MaxCountAgo", mar3, "9999 years ago", []res{}},
		{"OutOfCalendar/MaxCountAhead", mar3, "in 9999 years", []res{}},
		{"OutOfCalendar/FromNow", mar3, "9000 years from now", []res{}},
		{"OutOfCalendar/BCE", mar3, "Writing began around 3000 BCE.", []res{}},
		{"OutOfCalendar/Millennium", mar3, "the first millennium", []res{}},
		{"OutOfCalendar/YearTwelveThousand", mar3, "the year 12000", []res{}},
		{"OutOfCalendar/TomorrowAtTheEnd", endOfTime, "tomorrow and today", []res{{"today", "9999-12-31", "day"}}},
		{"OutOfCalendar/NextYearAtTheEnd", endOfTime, "next year", []res{}},
		{"OutOfCalendar/YesterdayAtTheStart", startOfTime, "yesterday", []res{}},
		{"OutOfCalendar/LastWeekAtTheStart", startOfTime, "last week", []res{}},
		{"OutOfCalendar/MonthDayAtTheEnd", endOfTime, "January 5", []res{{"January 5", "9999-01-05", "day"}}},
		{"OutOfCalendar/Rest", mar3, "6000 years ago, and yesterday", []res{{"yesterday", "2025-03-02", "day"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := resolve(t, tc.text, tc.ref)
			if got == nil {
				got = []res{}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Resolve(%q, %s) mismatch (-want +got):\n%s", tc.text, tc.ref.Format("Mon 2006-01-02"), diff)
			}
		})
	}
}

// TestAbsoluteOutOfCalendar checks that year 0 names no date.
func TestAbsoluteOutOfCalendar(t *testing.T) {
	if got := temporal.Absolute("on 3 June 0000, in May 0000"); got != nil {
		t.Errorf("Absolute = %+v, want nil", got)
	}
}
