package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// EventBridge: the interruption rules and their targets, real calls to moto's EventBridge.

const defaultEventBus = "default"

var ruleNameRE = regexp.MustCompile(`^[\.\-_A-Za-z0-9]+$`)

// busOf is the event bus input, nil for the default bus (terraform leaves it out then).
func busOf(in pmap) *string {
	if b := str(in, "eventBusName"); b != "" && b != defaultEventBus {
		return aws.String(b)
	}
	return nil
}

func ebTags(m map[string]string) []ebtypes.Tag {
	var out []ebtypes.Tag
	for _, k := range sortedKeys(m) {
		out = append(out, ebtypes.Tag{Key: aws.String(k), Value: aws.String(m[k])})
	}
	return out
}

// ruleID is terraform's ruleCreateResourceID: the name on the default bus, else bus/name.
func ruleID(bus, name string) string {
	if bus == "" || bus == defaultEventBus {
		return name
	}
	return bus + "/" + name
}

func parseRuleID(id string) (bus, name string) {
	if i := strings.LastIndex(id, "/"); i >= 0 {
		return id[:i], id[i+1:]
	}
	return defaultEventBus, id
}

func putRuleInput(in pmap, name string) *eventbridge.PutRuleInput {
	input := &eventbridge.PutRuleInput{Name: aws.String(name), EventBusName: busOf(in)}
	if has(in, "description") {
		input.Description = aws.String(str(in, "description"))
	}
	if has(in, "eventPattern") {
		input.EventPattern = aws.String(str(in, "eventPattern"))
	}
	if has(in, "roleArn") {
		input.RoleArn = aws.String(str(in, "roleArn"))
	}
	if has(in, "scheduleExpression") {
		input.ScheduleExpression = aws.String(str(in, "scheduleExpression"))
	}
	if has(in, "state") {
		input.State = ebtypes.RuleState(str(in, "state"))
	} else if enabled, ok := boolean(in, "isEnabled"); ok {
		input.State = ebtypes.RuleStateDisabled
		if enabled {
			input.State = ebtypes.RuleStateEnabled
		}
	}
	return input
}

var ruleOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		var out []*pulumirpc.CheckFailure
		for _, k := range []string{"name", "namePrefix"} {
			if v := str(in, k); v != "" && (len(v) > 64 || !ruleNameRE.MatchString(v)) {
				out = append(out, failure(k, "%q must be 1-64 characters of [.-_A-Za-z0-9], got %q", k, v))
			}
		}
		if !has(in, "eventPattern") && !has(in, "scheduleExpression") {
			out = append(out, failure("eventPattern", `one of "eventPattern" or "scheduleExpression" must be specified`))
		}
		out = append(out, checkJSON(in, "eventPattern")...)
		if len(str(in, "eventPattern")) > 4096 {
			out = append(out, failure("eventPattern", "eventPattern cannot be longer than 4096 characters"))
		}
		if len(str(in, "description")) > 512 {
			out = append(out, failure("description", "expected length of description to be in the range (0 - 512)"))
		}
		if s := str(in, "state"); s != "" && s != "ENABLED" && s != "DISABLED" && s != "ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS" {
			out = append(out, failure("state", "expected state to be one of [DISABLED ENABLED ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS], got %s", s))
		}
		return out
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		name := physicalName(in)
		input := putRuleInput(in, name)
		input.Tags = ebTags(stringMap(in, "tags"))
		if _, err := c.aws().events.PutRule(ctx, input); err != nil {
			return "", fmt.Errorf("creating EventBridge Rule (%s): %w", name, err)
		}
		return ruleID(str(in, "eventBusName"), name), nil
	},
	read: func(ctx context.Context, c *call, id string, in pmap) (pmap, error) {
		cl := c.aws().events
		bus, name := parseRuleID(id)
		input := &eventbridge.DescribeRuleInput{Name: aws.String(name)}
		if bus != defaultEventBus {
			input.EventBusName = aws.String(bus)
		}
		out, err := cl.DescribeRule(ctx, input)
		if isNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading EventBridge Rule (%s): %w", id, err)
		}
		tagsOut, err := cl.ListTagsForResource(ctx, &eventbridge.ListTagsForResourceInput{ResourceARN: out.Arn})
		if err != nil {
			return nil, fmt.Errorf("listing tags for EventBridge Rule (%s): %w", id, err)
		}
		tags := map[string]string{}
		for _, t := range tagsOut.Tags {
			tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
		enabled := out.State == ebtypes.RuleStateEnabled || out.State == ebtypes.RuleStateEnabledWithAllCloudtrailManagementEvents
		outs := pmap{
			"arn":                sv(aws.ToString(out.Arn)),
			"description":        sv(aws.ToString(out.Description)),
			"eventBusName":       sv(bus),
			"forceDestroy":       bv(boolOr(in, "forceDestroy", false)),
			"isEnabled":          bv(enabled),
			"name":               sv(aws.ToString(out.Name)),
			"namePrefix":         sv(namePrefixFromName(aws.ToString(out.Name))),
			"roleArn":            sv(aws.ToString(out.RoleArn)),
			"scheduleExpression": sv(aws.ToString(out.ScheduleExpression)),
			"state":              sv(string(out.State)),
			"tags":               mapValue(tags),
			"tagsAll":            mapValue(tags),
		}
		if out.EventPattern != nil {
			outs["eventPattern"] = sv(keepIfEquivalent(str(in, "eventPattern"), aws.ToString(out.EventPattern)))
		}
		return outs, nil
	},
	update: func(ctx context.Context, c *call, id string, state, oldIn, newIn pmap) error {
		cl := c.aws().events
		_, name := parseRuleID(id)
		input := putRuleInput(newIn, name)
		input.Tags = ebTags(stringMap(newIn, "tags")) // as terraform: for ABAC aws:RequestTag conditions
		if _, err := cl.PutRule(ctx, input); err != nil {
			return fmt.Errorf("updating EventBridge Rule (%s): %w", id, err)
		}
		remove, set := tagDiff(stringMap(oldIn, "tags"), stringMap(newIn, "tags"))
		ruleArn := aws.String(str(state, "arn"))
		if len(remove) > 0 {
			if _, err := cl.UntagResource(ctx, &eventbridge.UntagResourceInput{ResourceARN: ruleArn, TagKeys: remove}); err != nil {
				return fmt.Errorf("untagging EventBridge Rule (%s): %w", id, err)
			}
		}
		if len(set) > 0 {
			if _, err := cl.TagResource(ctx, &eventbridge.TagResourceInput{ResourceARN: ruleArn, Tags: ebTags(set)}); err != nil {
				return fmt.Errorf("tagging EventBridge Rule (%s): %w", id, err)
			}
		}
		return nil
	},
	// EventBridge (and moto) refuse to delete a rule that still has targets ("Rule can't be
	// deleted since it has targets"). terraform retries that error for five minutes; the
	// stand-in returns it at once, so a destroy that deletes a rule before its targets fails.
	delete: func(ctx context.Context, c *call, id string, state pmap) error {
		bus, name := parseRuleID(id)
		input := &eventbridge.DeleteRuleInput{Name: aws.String(name)}
		if bus != defaultEventBus {
			input.EventBusName = aws.String(bus)
		}
		input.Force, _ = boolean(state, "forceDestroy")
		if _, err := c.aws().events.DeleteRule(ctx, input); err != nil && !isNotFound(err) {
			return fmt.Errorf("deleting EventBridge Rule (%s): %w", id, err)
		}
		return nil
	},
}

// ---- aws:cloudwatch/eventTarget:EventTarget -----------------------------------------------

var targetIDRE = regexp.MustCompile(`^[\.\-_A-Za-z0-9]+$`)

// targetID is terraform's targetCreateResourceID: rule-target on the default bus, else
// bus-rule-target.
func targetID(bus, rule, target string) string {
	if bus == "" || bus == defaultEventBus {
		return rule + "-" + target
	}
	return bus + "-" + rule + "-" + target
}

func ebTarget(in pmap) ebtypes.Target {
	t := ebtypes.Target{Id: aws.String(str(in, "targetId")), Arn: aws.String(str(in, "arn"))}
	if has(in, "input") {
		t.Input = aws.String(str(in, "input"))
	}
	if has(in, "inputPath") {
		t.InputPath = aws.String(str(in, "inputPath"))
	}
	if has(in, "roleArn") {
		t.RoleArn = aws.String(str(in, "roleArn"))
	}
	return t
}

func putTarget(ctx context.Context, c *call, in pmap) error {
	out, err := c.aws().events.PutTargets(ctx, &eventbridge.PutTargetsInput{
		Rule: aws.String(str(in, "rule")), EventBusName: busOf(in), Targets: []ebtypes.Target{ebTarget(in)},
	})
	if err == nil && out.FailedEntryCount > 0 {
		e := out.FailedEntries[0]
		err = fmt.Errorf("failed entry %s: %s", aws.ToString(e.ErrorCode), aws.ToString(e.ErrorMessage))
	}
	return err
}

var targetOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		var out []*pulumirpc.CheckFailure
		if v := str(in, "targetId"); v != "" && (len(v) > 64 || !targetIDRE.MatchString(v)) {
			out = append(out, failure("targetId", "targetId must be 1-64 characters of [.-_A-Za-z0-9], got %q", v))
		}
		if v := str(in, "arn"); v != "" && !strings.HasPrefix(v, "arn:") {
			out = append(out, failure("arn", "%q (%s) is an invalid ARN", "arn", v))
		}
		if has(in, "input") && has(in, "inputPath") {
			out = append(out, failure("input", `"input": conflicts with inputPath`))
		}
		return out
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		in = in.Copy()
		if !has(in, "targetId") {
			in["targetId"] = sv(prefixedUniqueID("terraform-")) // terraform's id.UniqueId()
		}
		id := targetID(str(in, "eventBusName"), str(in, "rule"), str(in, "targetId"))
		if err := putTarget(ctx, c, in); err != nil {
			return "", fmt.Errorf("creating EventBridge Target (%s): %w", id, err)
		}
		c.inputs = in // read sees the generated targetId
		return id, nil
	},
	read: func(ctx context.Context, c *call, id string, in pmap) (pmap, error) {
		bus := strOr(in, "eventBusName", defaultEventBus)
		rule, want := str(in, "rule"), str(in, "targetId")
		input := &eventbridge.ListTargetsByRuleInput{Rule: aws.String(rule)}
		if bus != defaultEventBus {
			input.EventBusName = aws.String(bus)
		}
		for {
			page, err := c.aws().events.ListTargetsByRule(ctx, input)
			if isNotFound(err) {
				return nil, nil
			}
			if err != nil {
				return nil, fmt.Errorf("reading EventBridge Target (%s): %w", id, err)
			}
			for _, t := range page.Targets {
				if aws.ToString(t.Id) != want {
					continue
				}
				outs := pmap{
					"arn":          sv(aws.ToString(t.Arn)),
					"eventBusName": sv(bus),
					"forceDestroy": bv(boolOr(in, "forceDestroy", false)),
					"id":           sv(id),
					"input":        sv(aws.ToString(t.Input)),
					"inputPath":    sv(aws.ToString(t.InputPath)),
					"roleArn":      sv(aws.ToString(t.RoleArn)),
					"rule":         sv(rule),
					"targetId":     sv(want),
				}
				return outs, nil
			}
			if page.NextToken == nil {
				return nil, nil
			}
			input.NextToken = page.NextToken
		}
	},
	update: func(ctx context.Context, c *call, id string, state, _, newIn pmap) error {
		in := newIn.Copy()
		in["targetId"] = sv(str(state, "targetId"))
		if err := putTarget(ctx, c, in); err != nil {
			return fmt.Errorf("updating EventBridge Target (%s): %w", id, err)
		}
		return nil
	},
	delete: func(ctx context.Context, c *call, id string, state pmap) error {
		input := &eventbridge.RemoveTargetsInput{
			Rule: aws.String(str(state, "rule")), EventBusName: busOf(state), Ids: []string{str(state, "targetId")},
		}
		input.Force, _ = boolean(state, "forceDestroy")
		out, err := c.aws().events.RemoveTargets(ctx, input)
		if isNotFound(err) {
			return nil
		}
		if err == nil && out.FailedEntryCount > 0 {
			e := out.FailedEntries[0]
			err = fmt.Errorf("failed entry %s: %s", aws.ToString(e.ErrorCode), aws.ToString(e.ErrorMessage))
		}
		if err != nil {
			return fmt.Errorf("deleting EventBridge Target (%s): %w", id, err)
		}
		return nil
	},
}
