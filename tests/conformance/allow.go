package conformance

// AllowedDeprecations are keys the component sends or reads although the newest checked
// version of their provider marks them @deprecated, each with the reason it is kept. Keys are
// Finding.Key: "<type token> input <path>", "<invoke token> result <field>",
// "<type token> type". An entry no render reaches any more fails the test, so the list never
// outlives its reasons.
var AllowedDeprecations = map[string]string{}
