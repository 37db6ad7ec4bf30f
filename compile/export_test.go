package compile

// SplitUnits exposes the document splitter to the external tests.
var SplitUnits = splitUnits
