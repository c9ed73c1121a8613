"""Long, resumable jobs: challenge sets (`challenge_set`), speech synthesis (`synthesis`),
transcription (`transcription`) and the ASR-then-QA cascade (`cascade`). Commands call them."""
