// Spoken questions for training data: read by three flite voices (kal16, awb, slt; each question's
// voice fixed by its id) and recognised by pocketsphinx's `fast` preset. The robust-training
// recipe's ASR copy of its training split.
{
  type: 'asr',
  synthesizers: [
    { type: 'flite', voice: 'kal16' },
    { type: 'flite', voice: 'awb' },
    { type: 'flite', voice: 'slt' },
  ],
  recognizer: { type: 'pocketsphinx', preset: 'fast' },
}
