package lab

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// EC2's catalog calls — DescribeInstanceTypes, DescribeInstanceTypeOfferings and
// DescribeSpotPriceHistory — answer from data moto ships (its instance type and offering tables;
// every spot price 0.00001 at one fixed time), the same for every world of a run, whatever it
// holds. Karpenter makes them, page by page, at each controller start and each pricing refresh,
// and moto takes seconds of a core to serialize each (in a run of TestKarpenterAdoption, 80 of the
// 118 s moto computed). The recorder keeps moto's answer to each request (the region it is
// signed for, its parameters) for every later world and controller of the test process: the
// same bytes moto would send, but its request id. A stand-in's shortcut, named as one in
// tests/e2e/README.md; the calls are recorded as before.
var catalogCache = struct {
	sync.Mutex
	answers map[string]cachedAnswer
}{answers: map[string]cachedAnswer{}}

type cachedAnswer struct {
	header http.Header
	body   []byte
}

// catalogCalls are the calls whose answers the cache keeps.
var catalogCalls = map[string]bool{"DescribeInstanceTypes": true, "DescribeInstanceTypeOfferings": true, "DescribeSpotPriceHistory": true}

// catalogKey is the cache's key for call c, "" for a call it does not keep. A spot price history
// request's StartTime and EndTime are left out: Karpenter asks from time.Now() at each refresh,
// and moto's answer does not depend on them.
func catalogKey(c *AWSCall) string {
	if c.Service != "ec2" || !catalogCalls[c.Action] || c.DryRun {
		return ""
	}
	params := url.Values{}
	for k, v := range c.Params {
		if c.Action == "DescribeSpotPriceHistory" && (k == "StartTime" || k == "EndTime") {
			continue
		}
		params[k] = v
	}
	return c.Region + "|" + params.Encode()
}

// answerFromCatalogCache writes the kept answer to key, if there is one.
func answerFromCatalogCache(w http.ResponseWriter, key string) bool {
	if key == "" {
		return false
	}
	catalogCache.Lock()
	a, ok := catalogCache.answers[key]
	catalogCache.Unlock()
	if !ok {
		return false
	}
	for k, v := range a.header {
		if !strings.EqualFold(k, "Content-Length") {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(a.body)
	return true
}

// keepCatalogAnswer keeps moto's successful answer to key.
func keepCatalogAnswer(resp *http.Response, key string) error {
	if key == "" || resp.StatusCode != http.StatusOK {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	catalogCache.Lock()
	catalogCache.answers[key] = cachedAnswer{header: resp.Header.Clone(), body: body}
	catalogCache.Unlock()
	return nil
}
