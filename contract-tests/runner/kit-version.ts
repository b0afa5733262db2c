/** Version of petstore-contract, printed by --version and recorded in every report. */
export const kitVersion = '0.1.0';
