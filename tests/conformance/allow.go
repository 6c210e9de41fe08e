package conformance

// AllowedDeprecations are keys the component sends or reads although the newest checked
// version of their provider marks them @deprecated, each with the reason it is kept. Keys are
// Finding.Key: "<type token> input <path>", "<invoke token> result <field>",
// "<type token> type". An entry no render reaches any more fails the test, so the list never
// outlives its reasons.
var AllowedDeprecations = map[string]string{
	"aws:eks/getAccessEntry:getAccessEntry result tagsAll": "the children are registered at pulumi-aws 6.83.2, whose " +
		"getAccessEntry answers an entry's tags in tagsAll (its tags may be empty); with a v7 provider the component " +
		"reads tags first (provider/children/readcluster.go, AccessEntry)",
}
