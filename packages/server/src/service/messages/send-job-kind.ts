/** Job kinds of the message pipeline. */
export const SEND_JOB = "message.send";
export const SEND_MDN_JOB = "mdn.send";
export const RECEIVE_JOB = "message.receive";
export const SIMULATED_MDN_JOB = "message.simulated_mdn";
