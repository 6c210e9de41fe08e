package lab

import (
	"net/url"
	"strings"
	"testing"
)

// A delete of a launch template that is gone already (moto's NotFound) authorizes nothing; one
// that succeeded without its tags read is a gap the IAM check names.
func TestDeleteOfAGoneResourceIsNotAuthorized(t *testing.T) {
	gone := AWSCall{Service: "ec2", Action: "DeleteLaunchTemplate", Status: 400,
		Params: url.Values{"LaunchTemplateId": {"lt-0123456789abcdef0"}}}
	if reqs, err := requestsFor(gone); err != nil || len(reqs) != 0 {
		t.Errorf("a NotFound delete: requests %v, error %v; want none", reqs, err)
	}
	done := gone
	done.Status = 200
	if _, err := requestsFor(done); err == nil || !strings.Contains(err.Error(), "no tags of the resources it acts on were read") {
		t.Errorf("a successful delete without tags: error %v, want the gap named", err)
	}
}
