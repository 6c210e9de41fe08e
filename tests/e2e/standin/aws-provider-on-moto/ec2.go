package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// ec2Query calls the EC2 Query API (form-encoded POST, SigV4-signed, XML answers) directly. The
// stand-in needs three EC2 actions (CreateTags, DeleteTags, DescribeTags; its tests also create
// a VPC, subnet and security group to tag), and the generated aws-sdk-go-v2 EC2 client is one of
// the largest Go packages there is: compiling it on the shared 2-core machines would cost more
// than the whole stand-in. The requests are the ones the SDK sends (API version 2016-11-15).
type ec2Query struct {
	endpoint string
	region   string
	creds    aws.CredentialsProvider
	http     *http.Client
	signer   *v4.Signer
}

// ec2Error is an EC2 error answer, e.g. InvalidSubnetID.NotFound.
type ec2Error struct {
	Code, Message string
}

func (e *ec2Error) Error() string { return "api error " + e.Code + ": " + e.Message }

// ErrorCode matches smithy.APIError's method, so errorCode() reads EC2 errors too.
func (e *ec2Error) ErrorCode() string { return e.Code }

func (q *ec2Query) call(ctx context.Context, action string, params url.Values, out any) error {
	form := url.Values{"Action": {action}, "Version": {"2016-11-15"}}
	for k, vs := range params {
		form[k] = vs
	}
	body := form.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, q.endpoint, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	creds, err := q.creds.Retrieve(ctx)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(body))
	if err := q.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "ec2", q.region, time.Now()); err != nil {
		return err
	}
	resp, err := q.http.Do(req)
	if err != nil {
		return fmt.Errorf("EC2 %s: %w", action, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var e struct {
			Errors []ec2Error `xml:"Errors>Error"`
		}
		if xml.Unmarshal(data, &e) == nil && len(e.Errors) > 0 {
			return fmt.Errorf("EC2 %s: %w", action, &e.Errors[0])
		}
		return fmt.Errorf("EC2 %s: HTTP %d: %s", action, resp.StatusCode, strings.TrimSpace(string(data)))
	}
	if out != nil {
		return xml.Unmarshal(data, out)
	}
	return nil
}

func (q *ec2Query) createTags(ctx context.Context, resourceID, key, value string) error {
	return q.call(ctx, "CreateTags", url.Values{
		"ResourceId.1": {resourceID}, "Tag.1.Key": {key}, "Tag.1.Value": {value},
	}, nil)
}

func (q *ec2Query) deleteTags(ctx context.Context, resourceID, key, value string) error {
	return q.call(ctx, "DeleteTags", url.Values{
		"ResourceId.1": {resourceID}, "Tag.1.Key": {key}, "Tag.1.Value": {value},
	}, nil)
}

// tag is the value of one tag on one resource, and whether the tag exists.
func (q *ec2Query) tag(ctx context.Context, resourceID, key string) (string, bool, error) {
	var out struct {
		Tags []struct {
			Key   string `xml:"key"`
			Value string `xml:"value"`
		} `xml:"tagSet>item"`
	}
	err := q.call(ctx, "DescribeTags", url.Values{
		"Filter.1.Name": {"resource-id"}, "Filter.1.Value.1": {resourceID},
		"Filter.2.Name": {"key"}, "Filter.2.Value.1": {key},
	}, &out)
	if err != nil {
		return "", false, err
	}
	for _, t := range out.Tags {
		if t.Key == key {
			return t.Value, true, nil
		}
	}
	return "", false, nil
}

// aws:ec2/tag:Tag — one tag on an EC2 resource; id "<resourceId>,<key>" as terraform's.
var ec2TagOps = ops{
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		if err := c.aws().ec2.createTags(ctx, str(in, "resourceId"), str(in, "key"), str(in, "value")); err != nil {
			return "", fmt.Errorf("creating EC2 Tag (%s) for resource (%s): %w", str(in, "key"), str(in, "resourceId"), err)
		}
		return str(in, "resourceId") + "," + str(in, "key"), nil
	},
	read: func(ctx context.Context, c *call, id string, _ pmap) (pmap, error) {
		resourceID, key, ok := strings.Cut(id, ",")
		if !ok {
			return nil, fmt.Errorf("invalid EC2 Tag id %q, want <resource-id>,<key>", id)
		}
		value, found, err := c.aws().ec2.tag(ctx, resourceID, key)
		if err != nil || !found {
			return nil, err
		}
		return pmap{"id": sv(id), "key": sv(key), "resourceId": sv(resourceID), "value": sv(value)}, nil
	},
	update: func(ctx context.Context, c *call, id string, _, _, newIn pmap) error {
		resourceID, key, _ := strings.Cut(id, ",")
		return c.aws().ec2.createTags(ctx, resourceID, key, str(newIn, "value"))
	},
	delete: func(ctx context.Context, c *call, id string, state pmap) error {
		resourceID, key, _ := strings.Cut(id, ",")
		return c.aws().ec2.deleteTags(ctx, resourceID, key, str(state, "value"))
	},
}

// tagSpecification adds a TagSpecification of the tags for a resource type (EC2 refuses one
// without tags).
func tagSpecification(params url.Values, resourceType string, tags map[string]string) {
	if len(tags) == 0 {
		return
	}
	params.Set("TagSpecification.1.ResourceType", resourceType)
	for i, k := range sortedKeys(tags) {
		params.Set(fmt.Sprintf("TagSpecification.1.Tag.%d.Key", i+1), k)
		params.Set(fmt.Sprintf("TagSpecification.1.Tag.%d.Value", i+1), tags[k])
	}
}

// updateTags is terraform's updateTags for EC2: delete the keys no longer there, (re)create the
// changed ones.
func updateTags(ctx context.Context, q *ec2Query, what, id string, olds, news map[string]string) error {
	remove, set := tagDiff(olds, news)
	for _, k := range remove {
		if err := q.deleteTags(ctx, id, k, olds[k]); err != nil {
			return fmt.Errorf("updating %s (%s) tags: %w", what, id, err)
		}
	}
	for _, k := range sortedKeys(set) {
		if err := q.createTags(ctx, id, k, set[k]); err != nil {
			return fmt.Errorf("updating %s (%s) tags: %w", what, id, err)
		}
	}
	return nil
}
