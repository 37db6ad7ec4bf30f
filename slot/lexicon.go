package slot

import "strings"

// fields splits a space-separated word list into a set.
func fields(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// stopwords say nothing about what an item is about: function words,
// pronouns, auxiliaries, chat filler, and the adjectives that only point
// ("new", "current").
var stopwords = fields(`a an the and or but if then so of to in on at by for from with into onto over
	under up down out off as than too very just also only still even again already yet this that these
	those there here it its it's i me my mine we us our ours you your yours he him his she her hers they
	them their theirs one someone anyone everyone something anything everything be is am are was were
	been being have has had having do does did doing done will would shall should can could may might
	must need needs needed i'm i'll i've i'd we're we'll we've we'd you're you'll he's she's they're
	let let's what which who whom whose when where why how all any both each few more most other some
	such own same ok okay yeah yes really actually probably maybe please thanks get gets got getting
	go goes going went gone make makes made making want wants like sure well now today keep keeps kept
	keeping stay stays stayed staying remain remains about around anyway though after including
	include includes new old current existing usual usually first whole exactly later newer earlier
	older latency duration length amount number level total setup process thing things stuff way kind
	type again much many every because during while despite between always through via thru`)

// choiceVerbs state that a choice was made; in a decision they say
// nothing of what it is about ("use PostgreSQL", "go with PostgreSQL").
// Placement verbs ("host the frontend on Vercel") are among them: the
// thing placed is the subject, the place the value.
var choiceVerbs = fields(`use uses used using adopt adopts adopted adopting pick picks picked picking
	choose chooses chose chosen choosing stick sticks stuck sticking switch switches switched switching
	move moves moved moving migrate migrates migrated migrating settle settles settled settling opt opts
	opted opting standardize standardise standardized standardised standardizing standardising select
	selected prefer preferred upgrade upgrades upgraded upgrading change changes changed changing decide
	decided agree agreed host hosts hosted hosting deploy deploys deployed deploying serve served
	serving run runs ran running`)

// riskVerbs say only that a risk may come about ("could cause downtime",
// "might see downtime"); in a risk they say nothing of what it is about.
var riskVerbs = fields(`cause causes caused causing see sees saw seeing face faces faced facing
	experience experiences experienced experiencing happen happens happened happening lead leads led
	leading result results resulted resulting end ends ended ending hit hits hitting`)

// determiners before a word make it a noun: "a call" is a meeting.
var determiners = fields(`a an the this that our your my their his her its another every each`)

// articles before a word make it a noun or a noun's modifier.
var articles = fields(`a an the`)

// polarityWords carry a statement's polarity: negations flip it; the
// modal and permissive words are dropped from the frame.
var (
	negations = fields(`not no never cannot can't don't doesn't didn't won't mustn't shouldn't isn't
		aren't wasn't weren't nor forbidden prohibited banned disallowed avoid avoids avoided avoiding
		refrain prohibit prohibits forbid forbids ban bans unable nobody none`)
	// cessations are verbs that end what they govern: "stop the
	// newsletter" says no to "keep the newsletter", as a negation does.
	cessations = fields(`stop stops stopped stopping cease ceases ceased ceasing quit quits quitting halt
		halts halted halting pause pauses paused pausing suspend suspends suspended suspending
		discontinue discontinues discontinued discontinuing`)
	// cancellations end what a decision or an action governs: "cancel
	// the yoga class" says what "there will be no yoga class" says. In a
	// risk a cancellation is what may happen ("the flight might be
	// cancelled"), and in a rule one thing done among others ("talks must
	// be cancelled in advance"): there they are verbs.
	cancellations = fields(`cancel cancels cancelled canceled cancelling canceling scrap scraps scrapped
		scrapping axe axed rid drop`)
	modals = fields(`must should shall can could may might would will allowed permitted required
		require requires ok fine free able mandatory compulsory obligatory necessary`)
	// passiveModals are participles that, after a form of "be", say only
	// that something may or must be done: "refunds are accepted within 14
	// days" says what "customers can get a refund within 14 days" does.
	passiveModals = fields(`accepted allowed permitted required expected needed`)
	beForms       = fields(`is are was were be been being`)
)

// commonAcronyms are written in capitals but name kinds of things, not
// particular ones: they are words, not names.
var commonAcronyms = fields(`api apis db dbs ui ux ci cd qa sso 2fa mfa pr prs etl sla slas slo slos
	vpc cdn dns ssl tls cli sdk os vm vms cpu cpus vcpu vcpus gpu ram ssd url urls faq crm hr it id ids
	pii ip tv eta eod eow asap fyi p50 p90 p95 p99 kpi okr mvp poc ai ml llm ssh vpn`)

// aliases map the spellings of one name, or of one abbreviation, to one
// form.
var aliases = map[string]string{
	"postgres": "postgresql", "pg": "postgresql", "psql": "postgresql", "k8s": "kubernetes",
	"js": "javascript", "ts": "typescript", "db": "database", "dbs": "database", "gh": "github",
	"mongo": "mongodb", "es": "elasticsearch", "elastic": "elasticsearch", "gcp": "google cloud",
	"mac": "macbook", "repo": "repository", "repos": "repository", "docs": "documentation",
	"doc": "documentation", "config": "configuration", "auth": "authentication", "prod": "production",
	"env": "environment", "infra": "infrastructure", "msg": "message", "msgs": "message",
	"datastore": "database", "datastores": "database", "data-store": "database",
	"till": "until", "til": "until", "'til": "until",
}

// synonyms map nouns and adjectives that say the same in an item to one
// of them; verbGroups do the same for verbs.
var synonyms = map[string]string{
	"caching": "cache", "cached": "cache", "shipping": "send", "cheaper": "cost", "price": "cost",
	"pricing": "cost", "costs": "cost", "spend": "cost", "spending": "cost", "budget": "cost",
	"owner": "own", "owns": "own", "owned": "own", "affected": "affect", "affecting": "affect",
	"response": "respond", "responses": "respond", "failure": "fail", "failures": "fail",
	"supported": "support", "supports": "support", "renewed": "renew", "renewal": "renew",
	"storing": "store", "stored": "store", "storage": "store", "warm": "weather", "hot": "weather",
	"cold": "weather", "temperature": "weather", "temperatures": "weather", "sunny": "weather",
	"chilly": "weather", "responsible": "own", "responsibility": "own", "food": "eat", "meal": "eat",
	"meals": "eat", "fee": "cost", "fees": "cost",
	// The dimension a measure is of, however it is named: "weigh under
	// 2,000 kg", "heavier than 2,000 kg", "a weight limit of 2,000 kg".
	"weigh": "weight", "weighs": "weight", "weighing": "weight", "weights": "weight", "heavier": "weight",
	"lighter": "weight", "wide": "width", "wider": "width", "narrower": "width", "tall": "height",
	"sick": "ill", "unwell": "ill", "late": "delay",
	"taller": "height", "deeper": "depth", "shallower": "depth", "longer": "length", "shorter": "length",
}

// chargeVerbs and sellVerbs set or state the price of what an item is
// about; with an amount of money they say what "cost" does ("charge £7 a
// jar", "a jar sells for £8").
var (
	chargeVerbs = fields(`charge charges charged charging`)
	sellVerbs   = fields(`sell sells sold selling`)
)

// lightVerbs are the stems of verbs that say little of what is done to
// their object: the rest of the item says it.
var lightVerbs = fields(`put handl deal sort`)

// irregulars map the past forms of irregular verbs to the verb, which
// the stemmer does not: "the meeting is held" is "hold the meeting".
var irregulars = map[string]string{
	"held": "hold", "sent": "send", "built": "build", "paid": "pay", "bought": "buy", "taken": "take",
	"took": "take", "given": "give", "gave": "give", "written": "write", "wrote": "write",
	"brought": "bring", "caught": "catch", "told": "tell", "taught": "teach",
	"found": "find", "chose": "choose", "drove": "drive", "driven": "drive", "flew": "fly",
	"flown": "fly", "ran": "run", "began": "begin", "begun": "begin", "shut": "shut", "hid": "hide",
	"hidden": "hide", "drew": "draw", "drawn": "draw", "froze": "freeze", "frozen": "freeze",
	"rang": "ring", "rung": "ring", "undertook": "undertake", "undertaken": "undertake", "worn": "wear",
	"wore": "wear", "shown": "show", "thrown": "throw", "eaten": "eat", "forgotten": "forget",
	"spoken": "speak", "stolen": "steal", "grown": "grow", "known": "know", "lent": "lend",
}

// verbGroups are verbs that say the same of an item, the first of each
// group standing for the rest. Every verb of a group is a verb.
var verbGroups = [][]string{
	{"send", "ship", "deliver", "delivery", "transit", "mail", "post", "forward", "reship", "resend",
		"arrive", "arrival"},
	{"schedule", "set_up", "arrange", "organize", "organise", "book", "reserve", "reschedule"},
	{"cancel", "rid", "terminate", "end", "scrap", "axe", "call_off", "pull_out"},
	{"give", "issue", "grant", "provide", "award", "supply"},
	{"submit", "upload", "publish"},
	{"build", "write", "create", "make", "develop", "implement", "draft", "code"},
	{"fix", "repair", "resolve", "patch", "mend"},
	{"check", "verify", "confirm", "validate", "double-check", "review", "inspect", "audit"},
	{"buy", "purchase", "order", "acquire"},
	{"pay", "settle"},
	{"call", "phone", "ring"},
	{"contact", "ping", "message", "email", "reach", "reach_out"},
	{"move", "migrate", "transfer", "relocate", "port"},
	{"remove", "delete", "clear", "erase", "take_down", "dismantle"},
	{"update", "refresh", "revise", "edit", "modify", "amend"},
	{"find", "search", "locate", "source"},
	{"collect", "gather", "obtain", "pick_up"},
	{"start", "begin", "launch", "kick_off"},
	{"finish", "complete", "wrap_up", "finalise", "finalize"},
	{"reduce", "decrease", "lower", "cut"},
	{"follow_up", "chase"},
	{"share", "circulate", "distribute"},
	{"approve", "sign_off", "authorize", "authorise"},
	{"save", "put_away", "put_aside", "set_aside"},
	{"hire", "recruit", "bring_in", "take_on"},
	{"take", "catch"},
	{"have", "hold", "host"},
	{"renew", "extend"},
	{"return", "bring_back", "give_back"},
	{"ask", "inquire", "enquire"},
	{"prepare", "ready"},
	{"train", "retrain"},
	{"test", "try"},
	{"postpone", "defer", "push_back", "delay"},
	{"miss", "slip", "overrun"},
	{"fail", "break", "break_down", "malfunction", "crash"},
	{"escalate", "pass_on", "hand_off", "hand_over"},
	{"respond", "answer", "reply"},
	{"clean", "tidy", "tidy_up", "clean_up"},
	{"investigate", "look_into", "dig_into"},
	{"discuss", "talk_about", "go_over"},
}

// nounGroups are nouns that name the same thing in an item, the first of
// each group standing for the rest; they are compared by stem, so one
// form of each is enough. They are kinds of things people talk about in
// project, support and personal conversations, not the words of any one
// conversation.
var nounGroups = [][]string{
	{"database", "datastore"},
	{"due", "deadline"},
	{"child", "children", "kid", "kiddo"},
	{"mom", "mum", "mother", "mommy", "mama"},
	{"dad", "father", "daddy", "papa"},
	{"grandma", "grandmother", "granny", "nan"},
	{"grandpa", "grandfather"},
	{"apartment", "flat"},
	{"bug", "defect"},
	{"customer", "client"},
	{"car", "vehicle"},
	{"bicycle", "bike"},
	{"doctor", "physician", "gp"},
	{"television", "tv"},
	{"fridge", "refrigerator"},
	{"sofa", "couch"},
	{"photo", "picture", "pic"},
	{"movie", "film"},
	{"vacation", "holiday"},
	{"trip", "journey"},
	{"attendee", "participant"},
	{"salary", "wage"},
	{"role", "position", "vacancy"},
	{"laptop", "notebook"},
	{"password", "passcode"},
	{"teammate", "colleague", "coworker"},
	{"boss", "manager"},
	{"spec", "specification"},
	{"meeting", "meetup", "call", "sync"},
	{"gift", "present"},
}

// verbs are verbs that groups do not hold, in their base form.
var verbs = fields(`accept add allow announce answer apply assign attend back_up block bring charge
	choose clean close compare conclude cook cover cut cycle decide decline decrease deny deploy disable discuss divide do expand
	document drive drop eat enable escalate estimate exclude explain fly follow_up grow help hide hike
	improve include increase install invest invite join keep label learn leave let limit lock log look
	lower meet merge miss monitor notify offer open paint pick pick_up plan play present print prioritize
	publish push raise read rebuild reduce refund register reject release remind rename rent repeat
	replace reply report request reset respond restart restore rotate roll_back roll_out run scale sell
	set show shut_down sign_up skip sleep speak spend split stop store study support swim switch talk
	teach tell track translate turn_off turn_on uninstall unlock upgrade use visit wait walk wash watch
	water waive win work`)

// notRepeated are verbs that begin with "re" without meaning "again":
// "recall" is not "call" again.
var notRepeated = fields(`recall recover represent research record react remark reform relay resign
	retreat recount recollect reward refine retire relate relax`)

// particles make phrasal verbs of the verbs before them ("set up").
var particles = fields(particleList)

const particleList = `up away aside off out back down over on in into about`

// antonyms are verbs of opposite sense: one replacing the other is a
// change, as a negation is.
var antonyms = [][2]string{
	{"enable", "disable"}, {"accept", "reject"}, {"accept", "decline"}, {"allow", "block"},
	{"allow", "deny"}, {"approve", "reject"}, {"approve", "deny"}, {"include", "exclude"},
	{"add", "remove"}, {"open", "close"}, {"start", "stop"}, {"increase", "decrease"},
	{"increase", "reduce"}, {"raise", "lower"}, {"buy", "sell"}, {"lock", "unlock"}, {"show", "hide"},
	{"turn_on", "turn_off"}, {"join", "leave"}, {"install", "uninstall"}, {"upgrade", "downgrade"},
	{"hire", "fire"}, {"keep", "replace"}, {"keep", "remove"}, {"keep", "drop"}, {"win", "lose"},
}

// colors are values when they describe what an item chooses ("paint the
// living room sage green").
var colors = fields(`red orange yellow green blue purple violet pink brown black white grey gray beige
	navy teal turquoise cream ivory sage olive maroon burgundy gold silver charcoal lilac mint`)

// numberWords are numbers written as words.
var numberWords = map[string]float64{"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
	"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
	"fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
	"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
	"ninety": 90, "hundred": 100, "thousand": 1000, "once": 1, "twice": 2, "single": 1, "double": 2}

// unit is a measure: the dimension it is compared in and its size in the
// dimension's base.
type unit struct {
	dim  string
	size float64
}

// units are the measures a number may carry, by every spelling.
var units = func() map[string]unit {
	m := map[string]unit{}
	add := func(dim string, size float64, names string) {
		for _, n := range strings.Fields(names) {
			m[n] = unit{dim, size}
		}
	}
	add("duration", 0.001, "ms msec msecs millisecond milliseconds")
	add("duration", 1, "s sec secs second seconds")
	add("duration", 60, "min mins minute minutes")
	add("duration", 3600, "h hr hrs hour hours")
	add("duration", 86400, "day days d")
	add("duration", 7*86400, "week weeks wk wks")
	add("duration", 30*86400, "month months mo")
	add("duration", 365*86400, "year years yr yrs")
	add("size", 1, "b byte bytes")
	add("size", 1e3, "kb kib kilobyte kilobytes k")
	add("size", 1e6, "mb mib megabyte megabytes")
	add("size", 1e9, "gb gib gigabyte gigabytes")
	add("size", 1e12, "tb tib terabyte terabytes")
	add("percent", 1, "% percent per-cent pct")
	add("times", 1, "time times x")
	add("person", 1, "people person persons guests guest")
	add("night", 1, "night nights")
	// Measures of the physical world, so that "200kg" reads as "200 kg"
	// and "1.5 km" as "1,500 metres". Units that are also common words or
	// other things ("m", "g", "l", "pound") are left out.
	add("mass", 0.001, "mg milligram milligrams")
	add("mass", 1, "gram grams")
	add("mass", 1e3, "kg kgs kilo kilos kilogram kilograms")
	add("mass", 453.59237, "lb lbs")
	add("mass", 1e6, "ton tons tonne tonnes")
	add("length", 0.001, "mm millimetre millimetres millimeter millimeters")
	add("length", 0.01, "cm centimetre centimetres centimeter centimeters")
	add("length", 1, "metre metres meter meters")
	add("length", 1e3, "km kilometre kilometres kilometer kilometers")
	add("length", 0.0254, "inch inches")
	add("length", 0.3048, "ft foot feet")
	add("length", 1609.344, "mile miles")
	add("volume", 0.001, "ml millilitre millilitres milliliter milliliters")
	add("volume", 1, "litre litres liter liters")
	add("power", 1, "watt watts")
	add("power", 1e3, "kw kilowatt kilowatts")
	add("power", 1e6, "mw megawatt megawatts")
	add("energy", 1, "wh")
	add("energy", 1e3, "kwh")
	add("energy", 1e6, "mwh")
	add("speed", 1, "kph")
	add("speed", 1.609344, "mph")
	add("speed", 1.852, "knot knots kn")
	return m
}()

// rateUnits are what a rate is per: "$500 a month", "5 times a week".
var rateUnits = fields(`second minute hour day week month year night sprint quarter request user seat
	person call`)

// Bounds of a quantity.
const (
	boundMax = "max"
	boundMin = "min"
)

// boundPhrases are the words before a number that make it a bound, as
// word sequences; the longest match wins.
var boundPhrases = func() map[string]string {
	m := map[string]string{}
	for _, p := range []string{"under", "below", "less than", "fewer than", "at most", "no more than",
		"not more than", "up to", "within", "maximum of", "a maximum of", "max", "maximum",
		"not exceed", "cannot exceed", "can't exceed", "must not exceed", "should not exceed",
		"never exceed", "don't exceed", "doesn't exceed", "no later than", "a hard limit of",
		"hard limit of", "limit of", "limited to", "capped at", "cap of", "cap at", "shorter than",
		"earlier than", "lower than", "smaller than", "cheaper than", "lighter than", "narrower than",
		"shallower than", "slower than"} {
		m[p] = boundMax
	}
	for _, p := range []string{"over", "above", "more than", "at least", "no less than", "not less than",
		"longer than", "later than", "greater than", "higher than", "bigger than", "larger than",
		"minimum of", "a minimum of", "min", "minimum", "no fewer than", "heavier than", "wider than",
		"taller than", "deeper than", "faster than", "older than"} {
		m[p] = boundMin
	}
	m["younger than"] = boundMax
	m["exceed"] = boundMin
	return m
}()

// strictBounds are the bound phrases that exclude the value they bound:
// "over 21" is "at least 22" in whole numbers. The rest ("at least", "up
// to", "no more than", "within", a limit) include it.
var strictBounds = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range []string{"under", "below", "less than", "fewer than", "shorter than", "earlier than",
		"lower than", "smaller than", "cheaper than", "lighter than", "narrower than", "shallower than",
		"slower than", "younger than", "over", "above", "more than", "longer than", "later than",
		"greater than", "higher than", "bigger than", "larger than", "heavier than", "wider than",
		"taller than", "deeper than", "faster than", "older than", "exceed"} {
		m[p] = true
	}
	return m
}()

// dimensionComparatives open bound phrases ("heavier than") and name the
// dimension the bound is of, which stays a word of the frame: "heavier
// than 2,000 kg" is about weight as "weigh under 2,000 kg" is.
var dimensionComparatives = fields(`heavier lighter wider narrower taller deeper shallower longer shorter`)

// dimensionAdjectives may stand between a measure and a bound written
// after it ("90 cm wide at most").
var dimensionAdjectives = fields(`wide long tall high deep heavy thick`)

// limitNouns say that the measure an item states is a bound: "the weight
// limit is 2,000 kg" is "at most 2,000 kg"; "minimumNouns" that it is a
// lower one.
var (
	limitNouns   = fields(`limit limits cap maximum max ceiling`)
	minimumNouns = fields(`minimum min`)
)

// boundAfterPhrases are the words after a number that make it a bound
// ("16 or older", "3 kW or more", "noon at the latest").
var boundAfterPhrases = func() map[string]string {
	m := map[string]string{}
	for _, p := range []string{"or less", "or fewer", "or under", "or below", "or lower", "or earlier",
		"or younger", "or sooner", "or shorter", "at most", "at the latest", "at the most", "max",
		"maximum", "tops"} {
		m[p] = boundMax
	}
	for _, p := range []string{"or more", "or over", "or above", "or higher", "or greater", "or later",
		"or older", "or longer", "and up", "and over", "and above", "and older", "at least",
		"at the earliest", "at the least", "minimum", "or better"} {
		m[p] = boundMin
	}
	return m
}()

// phrasePreps are prepositions that stopwords and temporalPreps lack: a
// noun phrase ends before them.
var phrasePreps = fields(`along across around near behind beside besides between inside outside
	without within via toward towards against among beyond beneath underneath throughout per`)

// ageWords close a bound that measures age in years ("16 or older"), or
// open it ("aged 18 and over").
var ageWords = fields(`older younger aged age`)

// currencyWords are currencies written after the amount ("500 dollars",
// "120 euros"). "Pounds" also weigh, so it is left out.
var currencyWords = map[string]string{"dollar": "usd", "dollars": "usd", "usd": "usd", "bucks": "usd",
	"euro": "eur", "euros": "eur", "eur": "eur", "gbp": "gbp", "quid": "gbp", "yen": "jpy", "jpy": "jpy"}

// frequencyWords count times ("twice a day").
var frequencyWords = fields(`once twice thrice`)

// rateAdverbs are written rates: "twice daily" is "twice a day".
var rateAdverbs = map[string]string{"hourly": "hour", "daily": "day", "nightly": "night", "weekly": "week",
	"monthly": "month", "yearly": "year", "annually": "year", "quarterly": "quarter"}

// temporalPreps are the words after which a weekday, a month or a
// relative day is a date of the item ("by Friday", "in June"), not part of
// a name ("the March invoice").
var temporalPreps = fields(`by before until till on from since after at in for past through starting
	starts due during this next every of`)

var (
	months = map[string]int{"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6,
		"july": 7, "august": 8, "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1,
		"feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10,
		"nov": 11, "dec": 12}
	weekdays = map[string]string{"monday": "mon", "tuesday": "tue", "wednesday": "wed", "thursday": "thu",
		"friday": "fri", "saturday": "sat", "sunday": "sun", "mondays": "mon", "tuesdays": "tue",
		"wednesdays": "wed", "thursdays": "thu", "fridays": "fri", "saturdays": "sat", "sundays": "sun",
		"mon": "mon", "tue": "tue", "tues": "tue", "wed": "wed", "thu": "thu", "thur": "thu", "thurs": "thu",
		"fri": "fri", "sat": "sat", "sun": "sun"}
	relativeDays = fields(`today tonight tomorrow yesterday weekend weekends`)
	dayWords     = fields(`today tonight tomorrow yesterday`)
	periods      = fields(`day week month quarter year sprint`)
	dayParts     = fields(`morning afternoon evening night noon midnight`)
)

// Cue words in the message an item came from. A reversal cue says that the
// statement replaces an earlier one; an additive cue says that it comes on
// top of one ("the docs on Vercel too").
var (
	reversalCues = []string{"instead", "rather than", "switch to", "switching to", "switched",
		"switching", "no longer", "not anymore", "anymore", "actually", "change of plan", "changed",
		"scrap", "scratch that", "replace", "replaced", "replacing", "correction", "update",
		"after all", "moved", "from now on", "not any more"}
	additiveCues = []string{"too", "as well", "also", "either", "another", "in addition",
		"additionally", "plus", "both"}
	// restatementCues say that the statement repeats an earlier one.
	restatementCues = []string{"as agreed", "as planned", "as discussed", "as we said", "like we said",
		"like we agreed", "as decided", "to be clear", "to confirm", "confirming", "confirmed", "reminder",
		"remember", "still", "in other words", "i mean", "as before", "same as before", "once more"}
)
