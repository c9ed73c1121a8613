// NoiseQA's three interfaces in one source: each question goes, with equal weight, through speech
// (flite kal16 read, pocketsphinx recognised), keyboard typos or back-translation, as NoiseQA's
// synthetic sets do with their own generators.
{
  type: 'mix',
  sources: [
    { type: 'asr' },
    import 'keyboard.jsonnet',
    import 'back-translation.jsonnet',
  ],
  weights: [1, 1, 1],
}
