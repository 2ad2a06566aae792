package algorithms

import (
	"container/list"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// javaParamChecker is a line-by-line port of Sentinel 1.8.8+
// ParamFlowChecker.passDefaultLocalCheck and passThrottleLocalCheck
// (sentinel-extension/sentinel-parameter-flow-control), with
// ParameterMetric's caches as a plain LRU map of capacity
// min(4000·durationInSec, 200000) (ConcurrentLinkedHashMap: putIfAbsent
// and get of a present key are reads, which move it to the most recent
// end; an insert beyond the capacity evicts the least recent). It is
// written apart from SentinelParam, against the Java source, as the
// reference the in-repo test compares with; outside the repo the lab was
// compared with the real classes (docs/algorithms.md, sentinel-param).
type javaParamChecker struct {
	count      float64
	duration   int64 // seconds
	burst      int64
	throttle   bool
	maxQueueMs int64
	items      map[string]int64
	capacity   int
	// tokenCounters: value → TokenUpdateStatus; timeRecorderMap: value →
	// AtomicLong.
	lru   *list.List
	index map[string]*list.Element
}

type javaEntry struct {
	key          string
	lastAddToken int64 // TokenUpdateStatus.lastAddTokenTime, or the time recorder
	restQps      int64
}

func newJavaParamChecker(count float64, duration, burst int64, throttle bool, maxQueueMs int64, items map[string]int64) *javaParamChecker {
	return &javaParamChecker{count: count, duration: duration, burst: burst, throttle: throttle, maxQueueMs: maxQueueMs,
		items: items, capacity: int(min(4000*duration, 200000)), lru: list.New(), index: map[string]*list.Element{}}
}

// putIfAbsent returns the present entry (a read) or inserts e and returns
// nil.
func (j *javaParamChecker) putIfAbsent(e javaEntry) *javaEntry {
	if el, ok := j.index[e.key]; ok {
		j.lru.MoveToFront(el)
		return el.Value.(*javaEntry)
	}
	j.index[e.key] = j.lru.PushFront(&e)
	if j.lru.Len() > j.capacity {
		old := j.lru.Back()
		j.lru.Remove(old)
		delete(j.index, old.Value.(*javaEntry).key)
	}
	return nil
}

func (j *javaParamChecker) tokenCount(value string) int64 {
	tokenCount := int64(j.count) // (long) rule.getCount()
	if c, ok := j.items[value]; ok {
		tokenCount = c
	}
	return tokenCount
}

// check is passLocalCheck for one non-null value; it returns the pass and
// the throttle's sleep in ms.
func (j *javaParamChecker) check(currentTime int64, acquireCount int64, value string) (bool, int64) {
	tokenCount := j.tokenCount(value)
	if tokenCount == 0 {
		return false, 0
	}
	if j.throttle {
		costTime := int64(math.Floor(1.0*1000*float64(acquireCount)*float64(j.duration)/float64(tokenCount) + 0.5)) // Math.round
		timeRecorder := j.putIfAbsent(javaEntry{key: value, lastAddToken: currentTime})
		if timeRecorder == nil {
			return true, 0
		}
		lastPassTime := timeRecorder.lastAddToken
		expectedTime := lastPassTime + costTime
		if expectedTime <= currentTime || expectedTime-currentTime < j.maxQueueMs {
			timeRecorder.lastAddToken = currentTime // compareAndSet
			waitTime := expectedTime - currentTime
			if waitTime > 0 {
				timeRecorder.lastAddToken = expectedTime
				return true, waitTime
			}
			return true, 0
		}
		return false, 0
	}
	maxCount := tokenCount + j.burst
	if acquireCount > maxCount {
		return false, 0
	}
	last := j.putIfAbsent(javaEntry{key: value, lastAddToken: currentTime, restQps: maxCount - acquireCount})
	if last == nil {
		return true, 0
	}
	passTime := currentTime - last.lastAddToken
	if passTime > j.duration*1000 {
		restQps := last.restQps
		toAddCount := (passTime * tokenCount) / (j.duration * 1000)
		var newQps int64
		if toAddCount+restQps > maxCount {
			newQps = maxCount - acquireCount
		} else {
			newQps = restQps + toAddCount - acquireCount
		}
		if newQps < 0 {
			return false, 0
		}
		last.lastAddToken, last.restQps = currentTime, newQps
		return true, 0
	}
	newQps := last.restQps - acquireCount
	if newQps >= 0 {
		last.restQps = newQps
		return true, 0
	}
	return false, 0
}

// TestSentinelParamJavaPort compares SentinelParam (flavor=java) with the
// port on random traces, dense enough for the default 4000-value cache to
// evict values that come back within the duration.
func TestSentinelParamJavaPort(t *testing.T) {
	for ci, c := range []struct {
		spec                string
		count               float64
		duration, burst, mq int64
		throttle            bool
		items               map[string]int64
		keys                int
		perMs               int // arrivals per ms, about
	}{
		{"sentinel-param:count=5", 5, 1, 0, 0, false, nil, 8, 0},
		{"sentinel-param:count=2.7,duration=2s,burst=3", 2.7, 2, 3, 0, false, nil, 10, 0},
		{"sentinel-param:count=4,items=v1:0|v2:20", 4, 1, 0, 0, false, map[string]int64{"v1": 0, "v2": 20}, 12, 0},
		{"sentinel-param:count=3,behavior=throttle", 3, 1, 0, 0, true, nil, 6, 0},
		{"sentinel-param:count=7,duration=2s,behavior=throttle,max-queue=450ms", 7, 2, 0, 450, true, nil, 20, 0},
		{"sentinel-param:count=2", 2, 1, 0, 0, false, nil, 8000, 30},
		{"sentinel-param:count=2,behavior=throttle,max-queue=300ms", 2, 1, 0, 300, true, nil, 8000, 30},
	} {
		lim := mustNew(t, c.spec, 0).(*SentinelParam)
		lim.BindKeyNames(func(id int32) string { return "v" + strconv.Itoa(int(id)) })
		ref := newJavaParamChecker(c.count, c.duration, c.burst, c.throttle, c.mq, c.items)
		rng := rand.New(rand.NewPCG(uint64(ci), 21))
		at := int64(20_000)
		for i := 0; i < 60_000; i++ {
			if c.perMs > 0 {
				if rng.IntN(c.perMs) == 0 {
					at++
				}
			} else {
				switch x := rng.IntN(100); {
				case x < 25:
				case x < 27:
					at += int64(rng.IntN(10_000))
				case x < 29:
					at -= int64(rng.IntN(3000))
				default:
					at += int64(rng.IntN(300))
				}
			}
			id := int32(rng.IntN(c.keys))
			if rng.IntN(4) == 0 {
				id = int32(rng.IntN(3))
			}
			cost := int32(1 + rng.IntN(100)/90)
			r := Request{Keys: [MaxKeyColumns]int32{id, NoKey, NoKey, NoKey}, Cost: cost}
			got := lim.DecideRequest(time.Duration(at)*time.Millisecond, &r)
			pass, wait := ref.check(sentinelEpochMs+at, int64(cost), "v"+strconv.Itoa(int(id)))
			want := Decision{Pass: pass, Wait: time.Duration(wait) * time.Millisecond}
			if got != want {
				t.Fatalf("%s, request %d at %d ms (v%d, cost %d): the lab %+v, the Java port %+v", c.spec, i, at, id, cost, got, want)
			}
		}
		if c.perMs > 0 && lim.slots.evictions == 0 {
			t.Errorf("%s: the dense trace evicted nothing", c.spec)
		}
	}
}
