// Pilot lever "voices" (docs/results/e2e_voices.md): the three readings and the extra-training
// voices' reading (flite kal, eleven eSpeak NG variants, hibari heart): 22 voices.
(import 'pilot.libsonnet').config('fid2qid_train22.csv')
