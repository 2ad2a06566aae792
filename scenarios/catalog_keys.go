package scenarios

import "time"

// The keyed scenarios of issue 15: per-key limiters on traffic from many
// clients. Their limiters (nginx-limit-req, sentinel-param and key= on a
// single-key spec) are registered by the per-key limiter work; until they
// are, KeyedScenariosEnabled is false and the catalog leaves these out.
//
// Set it to true when nginx-limit-req, sentinel-param and key= are in the
// registry (TestKeyedCatalog then also builds every limiter).
const KeyedScenariosEnabled = true

// keyedCatalog returns the keyed scenarios when they are enabled.
func keyedCatalog() []Scenario {
	if !KeyedScenariosEnabled {
		return nil
	}
	return keyedScenarios()
}

// keyedScenarios are the four keyed scenarios, whether enabled or not.
func keyedScenarios() []Scenario {
	return []Scenario{
		{
			Name:        "heavy-hitters",
			Description: "Poisson at 20 000/s for 10 s from 100 000 keys drawn by Zipf's law (s = 1.1), a limit of 10/s per key: who is throttled, and what bounded tables forget",
			Limit:       10, Duration: 10 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhasePoisson, Rate: 20000, PhaseKeys: PhaseKeys{Keys: Population{Count: 100_000, Dist: DistZipf, S: 1.1}}},
			},
			Algorithms: []string{
				"nginx-limit-req:rate=10r/s,burst=20,nodelay=true,zone=10m,key=key",
				"sentinel-param:count=10,duration=1s,key=key",
				"token-bucket:rate=10,key=key",
				"token-bucket:rate=10,key=key,capacity=10000",
			},
		},
		{
			Name:        "key-spray",
			Description: "a hot key at twice its limit of 10/s for 15 s (bursts of 10 every 0.5 s), and from 5 s to 10 s 10 000 new keys/s: 5 000 new keys between two bursts evict the hot key from Sentinel's 4 000-value table and it comes back with a full bucket; a 1m nginx zone fills",
			Limit:       10, Duration: 15 * time.Second, Seed: 1,
			Phases: []Phase{
				// Bursts, not a steady 20/s: a key is evicted only when more
				// than the table's size of other keys come between two of its
				// requests, and at 10 000 new keys/s a steady 20/s sees 500.
				{Type: PhaseBurst, Count: 10, Every: 500 * time.Millisecond, PhaseKeys: PhaseKeys{Key: "hot"}},
				{Type: PhaseConstant, Start: 5 * time.Second, Duration: 5 * time.Second, Rate: 10000, PhaseKeys: PhaseKeys{Spray: true}},
			},
			Algorithms: []string{
				"nginx-limit-req:rate=10r/s,burst=20,nodelay=true,zone=1m,key=key",
				"sentinel-param:count=10,duration=1s,key=key",
				"token-bucket:rate=10,key=key",
				"token-bucket:rate=10,key=key,capacity=4000",
			},
		},
		{
			Name:        "nat-office",
			Description: "200 users behind one office address, each at 0.5/s (well under the limit of 10/s), beside 50 clients at 2/s: a per-address limit throttles every user of the office",
			Limit:       10, Duration: 30 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhasePoisson, Rate: 100, PhaseKeys: PhaseKeys{Key: "office-nat", Users: Population{Count: 200}}},
				{Type: PhasePoisson, Start: 0, Rate: 100, PhaseKeys: PhaseKeys{Keys: Population{Count: 50}}},
			},
			Algorithms: []string{
				"nginx-limit-req:rate=10r/s,burst=20,nodelay=true,zone=10m,key=key",
				"sentinel-param:count=10,duration=1s,key=key",
				"token-bucket:rate=10,key=key",
			},
		},
		{
			Name:        "burst-zero",
			Description: "one client at exactly its nginx rate of 3r/s, evenly spaced, with burst=0: whole-millisecond arithmetic rejects about one request in three",
			Limit:       3, Duration: 20 * time.Second, Seed: 1,
			Phases: []Phase{
				{Type: PhaseConstant, Rate: 3, PhaseKeys: PhaseKeys{Key: "client"}},
			},
			Algorithms: []string{
				"nginx-limit-req:rate=3r/s,burst=0,key=key",
				"nginx-limit-req:rate=3r/s,burst=1,key=key",
				"token-bucket:rate=3,burst=1,key=key",
			},
		},
	}
}
