//go:build e2e

package lab

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestCatalogCacheKeepsOnlyEC2sCatalogAnswers: the recorder answers a catalog call (the same
// region and parameters) from moto's earlier answer, byte for byte; another page, another region,
// a dry run, a failed answer or any other call goes to moto.
func TestCatalogCacheKeepsOnlyEC2sCatalogAnswers(t *testing.T) {
	call := func(service, region string, params ...string) *AWSCall {
		c := &AWSCall{Service: service, Region: region, Params: url.Values{}}
		for i := 0; i+1 < len(params); i += 2 {
			c.Params.Set(params[i], params[i+1])
		}
		c.Action, c.DryRun = c.Params.Get("Action"), c.Params.Get("DryRun") == "true"
		return c
	}
	types := call("ec2", "us-west-2", "Action", "DescribeInstanceTypes", "MaxResults", "100")
	key := catalogKey(types)
	for what, c := range map[string]*AWSCall{
		"a call the cache does not keep": call("ec2", "us-west-2", "Action", "DescribeInstances"),
		"a dry run":                      call("ec2", "us-west-2", "Action", "DescribeInstanceTypes", "DryRun", "true"),
		"another service":                call("iam", "us-west-2", "Action", "DescribeInstanceTypes"),
	} {
		if k := catalogKey(c); k != "" {
			t.Errorf("%s has the key %q", what, k)
		}
	}
	spot := call("ec2", "us-west-2", "Action", "DescribeSpotPriceHistory", "StartTime", "2026-11-29T10:00:00Z")
	if later := call("ec2", "us-west-2", "Action", "DescribeSpotPriceHistory", "StartTime", "2026-11-29T10:05:00Z"); catalogKey(later) != catalogKey(spot) {
		t.Error("a later refresh of the spot prices (StartTime now, which moto ignores) has another key")
	}
	for what, c := range map[string]*AWSCall{
		"the next page":   call("ec2", "us-west-2", "Action", "DescribeInstanceTypes", "MaxResults", "100", "NextToken", "abc"),
		"another region":  call("ec2", "eu-west-1", "Action", "DescribeInstanceTypes", "MaxResults", "100"),
		"another catalog": call("ec2", "us-west-2", "Action", "DescribeSpotPriceHistory", "MaxResults", "100"),
	} {
		if catalogKey(c) == key {
			t.Errorf("%s shares the first page's key", what)
		}
	}

	answer := func(status int, body string) *http.Response {
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"text/xml"}}, Body: io.NopCloser(strings.NewReader(body))}
	}
	if answerFromCatalogCache(httptest.NewRecorder(), key+"|unseen") {
		t.Fatal("answered a call moto never answered")
	}
	failed := answer(http.StatusServiceUnavailable, "<Error/>")
	if err := keepCatalogAnswer(failed, key+"|failed"); err != nil || answerFromCatalogCache(httptest.NewRecorder(), key+"|failed") {
		t.Errorf("kept a failed answer (%v)", err)
	}
	resp := answer(http.StatusOK, "<DescribeInstanceTypesResponse>m5.large</DescribeInstanceTypesResponse>")
	if err := keepCatalogAnswer(resp, key); err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(resp.Body); string(b) != "<DescribeInstanceTypesResponse>m5.large</DescribeInstanceTypesResponse>" {
		t.Errorf("the answer forwarded while it was kept: %q", b)
	}
	w := httptest.NewRecorder()
	if !answerFromCatalogCache(w, key) {
		t.Fatal("the kept answer was not given")
	}
	if w.Code != http.StatusOK || w.Body.String() != "<DescribeInstanceTypesResponse>m5.large</DescribeInstanceTypesResponse>" || w.Header().Get("Content-Type") != "text/xml" {
		t.Errorf("answered %d %q %v", w.Code, w.Body.String(), w.Header())
	}
}
