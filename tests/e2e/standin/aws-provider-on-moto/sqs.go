package main

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// SQS: the interruption queue and its policy, real calls to moto's SQS.

// queueAttributes maps the Queue's inputs to SQS attribute names, as terraform's
// queueAttributeMap (internal/service/sqs/queue.go).
var queueAttributes = []struct {
	prop, attr string
	kind       kind
	json       bool
}{
	{"contentBasedDeduplication", "ContentBasedDeduplication", kBool, false},
	{"deduplicationScope", "DeduplicationScope", kString, false},
	{"delaySeconds", "DelaySeconds", kInt, false},
	{"fifoQueue", "FifoQueue", kBool, false},
	{"fifoThroughputLimit", "FifoThroughputLimit", kString, false},
	{"kmsDataKeyReusePeriodSeconds", "KmsDataKeyReusePeriodSeconds", kInt, false},
	{"kmsMasterKeyId", "KmsMasterKeyId", kString, false},
	{"maxMessageSize", "MaximumMessageSize", kInt, false},
	{"messageRetentionSeconds", "MessageRetentionPeriod", kInt, false},
	{"policy", "Policy", kString, true},
	{"receiveWaitTimeSeconds", "ReceiveMessageWaitTimeSeconds", kInt, false},
	{"redriveAllowPolicy", "RedriveAllowPolicy", kString, true},
	{"redrivePolicy", "RedrivePolicy", kString, true},
	{"sqsManagedSseEnabled", "SqsManagedSseEnabled", kBool, false},
	{"visibilityTimeoutSeconds", "VisibilityTimeout", kInt, false},
}

// attrValue is an input as the SQS attribute string, with terraform's schema default when unset.
func attrValue(in pmap, prop string, k kind) (string, bool) {
	p := types["aws:sqs/queue:Queue"].inputs[prop]
	v := plain(in[resource.PropertyKey(prop)])
	if v.IsNull() {
		v = p.def
	}
	switch {
	case v.IsString():
		return v.StringValue(), true
	case v.IsNumber():
		return strconv.Itoa(int(v.NumberValue())), true
	case v.IsBool():
		return strconv.FormatBool(v.BoolValue()), true
	}
	return "", false
}

var queueNameRE = regexp.MustCompile(`^[0-9A-Za-z_-]{1,80}$`)
var fifoQueueNameRE = regexp.MustCompile(`^[0-9A-Za-z_-]{1,75}\.fifo$`)

func queueNameFromURL(u string) (string, error) {
	v, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	parts := strings.Split(v.Path, "/")
	if len(parts) != 3 {
		return "", fmt.Errorf("SQS Queue URL (%s) is in the incorrect format", u)
	}
	return parts[2], nil
}

var queueOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		var out []*pulumirpc.CheckFailure
		if name := str(in, "name"); name != "" {
			fifo, _ := boolean(in, "fifoQueue")
			if (!fifo && !queueNameRE.MatchString(name)) || (fifo && !fifoQueueNameRE.MatchString(name)) {
				out = append(out, failure("name", "invalid queue name: %s", name))
			}
		}
		for _, r := range []struct {
			k        string
			min, max int
		}{{"delaySeconds", 0, 900}, {"maxMessageSize", 1024, 1048576}, {"messageRetentionSeconds", 60, 1209600},
			{"visibilityTimeoutSeconds", 0, 43200}, {"kmsDataKeyReusePeriodSeconds", 60, 86400}} {
			if v, ok := integer(in, r.k); ok && (v < r.min || v > r.max) {
				out = append(out, failure(r.k, "expected %s to be in the range (%d - %d), got %d", r.k, r.min, r.max, v))
			}
		}
		if has(in, "kmsMasterKeyId") && has(in, "sqsManagedSseEnabled") {
			out = append(out, failure("kmsMasterKeyId", `"kmsMasterKeyId": conflicts with sqsManagedSseEnabled`))
		}
		fifo, _ := boolean(in, "fifoQueue")
		if cbd, _ := boolean(in, "contentBasedDeduplication"); cbd && !fifo {
			out = append(out, failure("contentBasedDeduplication", "content-based deduplication can only be set for FIFO queue"))
		}
		for _, k := range []string{"policy", "redrivePolicy", "redriveAllowPolicy"} {
			out = append(out, checkJSON(in, k)...)
		}
		return out
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		name := physicalName(in)
		attrs := map[string]string{}
		for _, a := range queueAttributes {
			v, ok := attrValue(in, a.prop, a.kind)
			if !ok {
				continue
			}
			// terraform's attrmap leaves false booleans out on create, except
			// sqs_managed_sse_enabled, which it always sends when configured.
			if a.kind == kBool && v == "false" && !(a.prop == "sqsManagedSseEnabled" && has(in, a.prop)) {
				continue
			}
			attrs[a.attr] = v
		}
		out, err := c.aws().sqs.CreateQueue(ctx, &sqs.CreateQueueInput{
			QueueName: aws.String(name), Attributes: attrs, Tags: stringMap(in, "tags"),
		})
		if err != nil {
			return "", fmt.Errorf("creating SQS Queue (%s): %w", name, err)
		}
		return aws.ToString(out.QueueUrl), nil
	},
	read: func(ctx context.Context, c *call, id string, in pmap) (pmap, error) {
		cl := c.aws().sqs
		out, err := cl.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl: aws.String(id), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll},
		})
		if isNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading SQS Queue (%s): %w", id, err)
		}
		tags, err := cl.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(id)})
		if err != nil {
			return nil, fmt.Errorf("listing tags for SQS Queue (%s): %w", id, err)
		}
		name, err := queueNameFromURL(id)
		if err != nil {
			return nil, err
		}
		outs := pmap{
			"arn":        sv(out.Attributes["QueueArn"]),
			"name":       sv(name),
			"namePrefix": sv(namePrefixFromName(name)),
			"url":        sv(id),
			"tags":       mapValue(tags.Tags),
			"tagsAll":    mapValue(tags.Tags),
		}
		for _, a := range queueAttributes {
			raw, ok := out.Attributes[a.attr]
			switch {
			case a.json:
				if ok && raw != "" {
					raw = keepIfEquivalent(str(in, a.prop), raw)
				}
				outs[resource.PropertyKey(a.prop)] = sv(raw)
			case a.kind == kString:
				outs[resource.PropertyKey(a.prop)] = sv(raw)
			case a.kind == kInt:
				n, _ := strconv.Atoi(raw)
				if a.prop == "kmsDataKeyReusePeriodSeconds" && n == 0 {
					n = 300 // terraform's backwards-compatible default when SQS returns none
				}
				outs[resource.PropertyKey(a.prop)] = nv(n)
			case a.kind == kBool:
				b, _ := strconv.ParseBool(raw)
				outs[resource.PropertyKey(a.prop)] = bv(b)
			}
		}
		return outs, nil
	},
	update: func(ctx context.Context, c *call, id string, _, oldIn, newIn pmap) error {
		cl := c.aws().sqs
		attrs := map[string]string{}
		for _, a := range queueAttributes {
			o, oldSet := attrValue(oldIn, a.prop, a.kind)
			n, newSet := attrValue(newIn, a.prop, a.kind)
			if !newSet {
				if !oldSet || !has(oldIn, a.prop) {
					continue
				}
				n = "" // an attribute the program stopped setting is cleared
			}
			if o == n || (a.json && jsonEquivalent(o, n)) {
				continue
			}
			attrs[a.attr] = n
		}
		if len(attrs) > 0 {
			if _, err := cl.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(id), Attributes: attrs}); err != nil {
				return fmt.Errorf("updating SQS Queue (%s) attributes: %w", id, err)
			}
		}
		remove, set := tagDiff(stringMap(oldIn, "tags"), stringMap(newIn, "tags"))
		if len(remove) > 0 {
			if _, err := cl.UntagQueue(ctx, &sqs.UntagQueueInput{QueueUrl: aws.String(id), TagKeys: remove}); err != nil {
				return fmt.Errorf("untagging SQS Queue (%s): %w", id, err)
			}
		}
		if len(set) > 0 {
			if _, err := cl.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(id), Tags: set}); err != nil {
				return fmt.Errorf("tagging SQS Queue (%s): %w", id, err)
			}
		}
		return nil
	},
	delete: func(ctx context.Context, c *call, id string, _ pmap) error {
		if _, err := c.aws().sqs.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(id)}); err != nil && !isNotFound(err) {
			return fmt.Errorf("deleting SQS Queue (%s): %w", id, err)
		}
		return nil
	},
}

// ---- aws:sqs/queuePolicy:QueuePolicy ------------------------------------------------------

func setQueuePolicy(ctx context.Context, c *call, queueURL, policy string) error {
	_, err := c.aws().sqs.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{
		QueueUrl: aws.String(queueURL), Attributes: map[string]string{"Policy": policy},
	})
	return err
}

var queuePolicyOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure { return checkJSON(in, "policy") },
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		u := str(in, "queueUrl")
		if err := setQueuePolicy(ctx, c, u, str(in, "policy")); err != nil {
			return "", fmt.Errorf("setting SQS Queue Policy (%s): %w", u, err)
		}
		return u, nil
	},
	read: func(ctx context.Context, c *call, id string, in pmap) (pmap, error) {
		out, err := c.aws().sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl: aws.String(id), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNamePolicy},
		})
		if isNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading SQS Queue Policy (%s): %w", id, err)
		}
		policy := out.Attributes["Policy"]
		if policy == "" {
			return nil, nil
		}
		return pmap{"id": sv(id), "policy": sv(keepIfEquivalent(str(in, "policy"), policy)), "queueUrl": sv(id)}, nil
	},
	update: func(ctx context.Context, c *call, id string, _, _, newIn pmap) error {
		if err := setQueuePolicy(ctx, c, id, str(newIn, "policy")); err != nil {
			return fmt.Errorf("setting SQS Queue Policy (%s): %w", id, err)
		}
		return nil
	},
	delete: func(ctx context.Context, c *call, id string, _ pmap) error {
		if err := setQueuePolicy(ctx, c, id, ""); err != nil && !isNotFound(err) {
			return fmt.Errorf("deleting SQS Queue Policy (%s): %w", id, err)
		}
		return nil
	},
}
